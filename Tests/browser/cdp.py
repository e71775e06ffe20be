#!/usr/bin/env python3
"""Drives headless Chromium through its DevTools protocol on a pipe (no extra packages).

Usage: cdp.py CHROMIUM STEPS_JSON
STEPS_JSON is a list of steps, run in order:
  {"go": URL}                         load a page; waits for its load event
  {"eval": JS}                        evaluate an expression; its value is recorded
  {"submit": JS}                      evaluate JS that submits a form or clicks a link; waits for the next load
  {"shot": PATH}                      a PNG screenshot of the whole page
  {"loadtime": true}                  records loadEventEnd - navigationStart of the page, in ms
Prints a JSON list with one entry per step (the value, or null); exits 1 on a protocol error.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix="jsonsql-chromium-")
        to_child, self.write_fd = os.pipe()
        self.read_fd, from_child = os.pipe()

        def pipes():
            # Chromium reads fd 3 and writes fd 4; copies first, as the pipes may be 3 or 4.
            commands, answers = os.dup(to_child), os.dup(from_child)
            os.dup2(commands, 3)
            os.dup2(answers, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
             "--remote-debugging-pipe", "--user-data-dir=" + self.profile,
             "--window-size=1280,900", "about:blank"],
            preexec_fn=pipes, close_fds=False,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE if os.environ.get("CDP_DEBUG") else subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)

    def read(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise RuntimeError("Chromium did not answer in time")
            chunk = os.read(self.read_fd, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=False, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            answer = self.read(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method, timeout=30):
        deadline = time.time() + timeout
        while True:
            for index, event in enumerate(self.events):
                if event.get("method") == method:
                    del self.events[:index + 1]
                    return event
            self.events.append(self.read(deadline))

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self):
        self.process.kill()
        self.process.wait()
        subprocess.run(["rm", "-rf", self.profile])


def main():
    chromium, steps = sys.argv[1], json.loads(sys.argv[2])
    browser = Browser(chromium)
    results = []
    try:
        for step in steps:
            if "go" in step:
                browser.events.clear()
                browser.call("Page.navigate", {"url": step["go"]}, session=True)
                browser.wait_for("Page.loadEventFired")
                results.append(None)
            elif "submit" in step:
                browser.events.clear()
                browser.evaluate(step["submit"])
                browser.wait_for("Page.loadEventFired")
                results.append(browser.evaluate("location.href"))
            elif "eval" in step:
                results.append(browser.evaluate(step["eval"]))
            elif "shot" in step:
                metrics = browser.call("Page.getLayoutMetrics", session=True)
                size = metrics.get("cssContentSize") or metrics["contentSize"]
                height = min(int(size["height"]) + 1, 4000)
                shot = browser.call("Page.captureScreenshot", {
                    "format": "png", "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": 1280, "height": max(height, 200), "scale": 1}},
                    session=True)
                with open(step["shot"], "wb") as out:
                    out.write(base64.b64decode(shot["data"]))
                results.append(os.path.getsize(step["shot"]))
            elif "loadtime" in step:
                results.append(browser.evaluate(
                    "performance.timing.loadEventEnd - performance.timing.navigationStart"))
    finally:
        browser.close()
    print(json.dumps(results))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as error:
        print(f"cdp.py: {error}", file=sys.stderr)
        sys.exit(1)
