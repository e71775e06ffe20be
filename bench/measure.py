#!/usr/bin/env python3
"""Timing, memory and reporting helper for bench/run.sh.

  measure.py run --results FILE --task T --size N --tool NAME [--rows N] [--repeat K]
                 [--warmup K] [--prep SHELL] [--stdout FILE] -- COMMAND ARGS...
      Runs COMMAND K times (after --warmup untimed runs; --prep runs in a shell before
      every run, untimed) and appends one JSON line per run to FILE: wall seconds,
      user+sys CPU seconds and peak RSS of that one process, taken from wait4(2).
      Standard output goes to --stdout (default /dev/null). Exits 1 when COMMAND fails,
      after printing the end of its standard error.

  measure.py report --results FILE [--markdown OUT] [--title T] [--note TEXT]...
      Groups the runs by task, size and tool, takes medians and prints one table,
      with the ratio of jsonsql's median wall time to each peer's. Also writes the
      table as markdown to OUT.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


GNU_TIME = "/usr/bin/time"


def have_gnu_time():
    try:
        return subprocess.run([GNU_TIME, "-f", "%M", "true"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


USE_TIME = have_gnu_time()


def run_once(argv, stdout_path):
    """One run of argv: (exit code, wall s, cpu s, peak RSS bytes, stderr text).

    Peak RSS comes from GNU time, which forks from its own small process: a child forked or
    vforked straight from Python inherits Python's resident set (about 15 MB) as its peak,
    because Linux keeps the high-water mark of the memory it had before exec. Without GNU
    time, wait4(2) is used and the figures include that floor.
    """
    with open(stdout_path, "wb") as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as stats:
        cmd = [GNU_TIME, "-q", "-f", "%M", "-o", stats.name, *argv] if USE_TIME else argv
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped; keeps Popen quiet
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        cpu = usage.ru_utime + usage.ru_stime
        rss = usage.ru_maxrss * 1024  # KiB on Linux
        if USE_TIME:
            fields = stats.read().split()  # wait4 counts time's child too, so cpu stays precise
            if fields and fields[-1].isdigit():
                rss = int(fields[-1]) * 1024
    return proc.returncode, wall, cpu, rss, stderr


def cmd_run(a):
    argv = a.command[1:] if a.command and a.command[0] == "--" else a.command
    if not argv:
        sys.exit("measure.py run: no command given")
    for i in range(a.warmup + a.repeat):
        if a.prep:
            subprocess.run(["bash", "-c", a.prep], check=True)
        code, wall, cpu, rss, stderr = run_once(argv, a.stdout)
        if code != 0:
            tail = "\n".join(stderr.strip().splitlines()[-15:])
            print(f"ERROR: {a.tool} ({a.task}, {a.size}) exited with {code}:\n  {' '.join(argv)}\n{tail}",
                  file=sys.stderr)
            with open(a.results, "a") as f:
                f.write(json.dumps({"task": a.task, "size": a.size, "tool": a.tool, "error": code}) + "\n")
            return 1
        if i < a.warmup:
            continue
        with open(a.results, "a") as f:
            f.write(json.dumps({"task": a.task, "size": a.size, "tool": a.tool, "rows": a.rows,
                                "wall": wall, "cpu": cpu, "rss": rss}) + "\n")
    return 0


def fmt_time(s):
    if s is None:
        return ""
    return f"{s * 1000:.2f} ms" if s < 0.1 else f"{s:.3f} s"


def fmt_rate(r):
    if not r:
        return ""
    if r >= 1e6:
        return f"{r / 1e6:.2f} M"
    return f"{r / 1e3:.0f} k"


def fmt_size(n):
    if n is None or n == "":
        return ""
    n = int(n)
    if n == 0:
        return "-"
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def cmd_report(a):
    groups = {}  # (task, size, tool) -> list of runs, in first-seen order
    errors = set()
    with open(a.results) as f:
        for line in f:
            r = json.loads(line)
            key = (r["task"], r["size"], r["tool"])
            groups.setdefault(key, [])
            if "error" in r:
                errors.add(key)
            else:
                groups[key].append(r)

    header = ["task", "size", "tool", "runs", "median wall", "cpu (user+sys)", "rows/s", "peak MB",
              "jsonsql/peer"]
    rows = []
    medians = {}
    for key, runs in groups.items():
        if runs:
            medians[key] = statistics.median(r["wall"] for r in runs)
    for key, runs in groups.items():
        task, size, tool = key
        if key in errors or not runs:
            rows.append([task, fmt_size(size), tool, str(len(runs)), "ERROR", "", "", "", ""])
            continue
        wall = medians[key]
        cpu = statistics.median(r["cpu"] for r in runs)
        rss = max(r["rss"] for r in runs) / 1048576
        n = runs[0].get("rows")
        rate = fmt_rate(n / wall) if n and wall > 0 else ""
        ratio = ""
        mine = medians.get((task, size, "jsonsql"))
        if tool != "jsonsql" and mine is not None and wall > 0 and not tool.startswith("("):
            ratio = f"{mine / wall:.2f}"
        rows.append([task, fmt_size(size), tool, str(len(runs)), fmt_time(wall), fmt_time(cpu), rate,
                     f"{rss:.1f}", ratio])

    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    right = {3, 4, 5, 6, 7, 8}

    def line(cells):
        return "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(cells))

    print(line(header))
    print("  ".join("-" * w for w in widths))
    previous = None
    for r in rows:
        if previous is not None and (r[0], r[1]) != previous:
            print()
        previous = (r[0], r[1])
        print(line(r))
    print("\njsonsql/peer = jsonsql's median wall time / the peer's (below 1: jsonsql is faster).")
    print("peak MB = the largest peak RSS of the process over the runs.")
    for note in a.note or []:
        print(note)

    if a.markdown:
        with open(a.markdown, "w") as f:
            if a.title:
                f.write(f"## {a.title}\n\n")
            for note in a.preamble or []:
                f.write(f"{note}\n")
            if a.preamble:
                f.write("\n")
            f.write("| " + " | ".join(header) + " |\n")
            f.write("|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|\n")
            for r in rows:
                f.write("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |\n")
            f.write("\njsonsql/peer = jsonsql's median wall time divided by the peer's (below 1: jsonsql is faster). "
                    "peak MB = the largest peak RSS over the runs.\n")
            for note in a.note or []:
                f.write(f"\n{note}\n")
    return 1 if errors else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--results", required=True)
    r.add_argument("--task", required=True)
    r.add_argument("--size", required=True, type=int)
    r.add_argument("--tool", required=True)
    r.add_argument("--rows", type=int)
    r.add_argument("--repeat", type=int, default=1)
    r.add_argument("--warmup", type=int, default=0)
    r.add_argument("--prep")
    r.add_argument("--stdout", default=os.devnull)
    r.add_argument("command", nargs=argparse.REMAINDER)
    s = sub.add_parser("report")
    s.add_argument("--results", required=True)
    s.add_argument("--markdown")
    s.add_argument("--title")
    s.add_argument("--preamble", action="append")
    s.add_argument("--note", action="append")
    a = p.parse_args()
    sys.exit(cmd_run(a) if a.cmd == "run" else cmd_report(a))


if __name__ == "__main__":
    main()
