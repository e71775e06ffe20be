#!/usr/bin/env python3
"""Timing, memory and reporting helper for bench/run.sh.

  measure.py run --results FILE --task T --size N --tool NAME [--rows N] [--repeat K]
                 [--warmup K] [--slow S] [--prep SHELL] [--stdout FILE] -- COMMAND ARGS...
      Runs COMMAND K times (after --warmup untimed runs; --prep runs in a shell before
      every run, untimed) and appends one JSON line per run to FILE: wall seconds,
      user+sys CPU seconds and peak RSS of that one process, taken from wait4(2).
      Standard output goes to --stdout (default /dev/null). Exits 1 when COMMAND fails,
      after printing the end of its standard error.
      --slow S: a command that once took longer than S seconds runs only once: a warm-up
      run that slow counts as the timed run, and later calls for the same task, size and
      tool do nothing (file-cache effects are small next to such a run).

      --table NAME: the runs belong to the side-by-side table NAME of the report (below).

  measure.py status --results FILE --task T --size N --tool NAME --status TEXT
      Records a state instead of a run: for a tool, e.g. "not supported" (it refused the
      query, so it was not timed); for the tool "answer", whether the tools' answers agreed.

  measure.py report --results FILE [--markdown OUT] [--title T] [--preamble TEXT]...
                    [--note TEXT]... [--scale-task T] [--scale-base N]
      Groups the runs by task, size and tool, takes medians and prints one table,
      with the ratio of jsonsql's median wall time to each peer's. Also writes the
      table as markdown to OUT. With --scale-task, a second table gives each tool's
      rows/s and peak memory for that task at every size, relative to size --scale-base.
      Runs recorded with --table NAME are left out of the main table and shown in one
      table per NAME, a row per task and size: jsonsql beside its one peer (median wall
      time, ratio, peak memory of each, and the "answer" status).
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


def took_over(results, task, size, tool, seconds):
    """Whether a recorded run of this task, size and tool took longer than seconds."""
    try:
        with open(results) as f:
            for line in f:
                r = json.loads(line)
                if (r["task"], r["size"], r["tool"]) == (task, size, tool) and r.get("wall", 0) > seconds:
                    return True
    except FileNotFoundError:
        pass
    return False


def cmd_run(a):
    argv = a.command[1:] if a.command and a.command[0] == "--" else a.command
    if not argv:
        sys.exit("measure.py run: no command given")
    if a.slow and took_over(a.results, a.task, a.size, a.tool, a.slow):
        return 0
    for i in range(a.warmup + a.repeat):
        if a.prep:
            subprocess.run(["bash", "-c", a.prep], check=True)
        code, wall, cpu, rss, stderr = run_once(argv, a.stdout)
        if code != 0:
            tail = "\n".join(stderr.strip().splitlines()[-15:])
            print(f"ERROR: {a.tool} ({a.task}, {a.size}) exited with {code}:\n  {' '.join(argv)}\n{tail}",
                  file=sys.stderr)
            record = {"task": a.task, "size": a.size, "tool": a.tool, "error": code}
            if a.table:
                record["table"] = a.table
            with open(a.results, "a") as f:
                f.write(json.dumps(record) + "\n")
            return 1
        slow = a.slow and wall > a.slow
        if i < a.warmup and not slow:
            continue
        record = {"task": a.task, "size": a.size, "tool": a.tool, "rows": a.rows,
                  "wall": wall, "cpu": cpu, "rss": rss}
        if a.table:
            record["table"] = a.table
        with open(a.results, "a") as f:
            f.write(json.dumps(record) + "\n")
        if slow:
            print(f"   ({a.tool} took {wall:.0f} s: runs once)", file=sys.stderr)
            break
    return 0


def cmd_status(a):
    record = {"task": a.task, "size": a.size, "tool": a.tool, "status": a.status}
    if a.table:
        record["table"] = a.table
    with open(a.results, "a") as f:
        f.write(json.dumps(record) + "\n")
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


def text_table(header, rows, right, group=2):
    """Aligned text; a blank line wherever the first `group` cells change."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(cells))

    out = [line(header), "  ".join("-" * w for w in widths)]
    previous = None
    for r in rows:
        if previous is not None and r[:group] != previous:
            out.append("")
        previous = r[:group]
        out.append(line(r))
    return "\n".join(out)


def markdown_table(header, rows, right):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    return "\n".join(out)


def scale_rows(groups, errors, task, base):
    """One row per tool and size of task: rows/s, and its ratio to the same tool at size base."""
    rates = {}
    for (t, size, tool), runs in groups.items():
        if t == task and runs and (t, size, tool) not in errors and runs[0].get("rows"):
            wall = statistics.median(r["wall"] for r in runs)
            if wall > 0:
                rates[(tool, size)] = (runs[0]["rows"] / wall, max(r["rss"] for r in runs) / 1048576, len(runs))
    tools = list(dict.fromkeys(tool for tool, _ in rates))
    rows = []
    for tool in tools:
        sizes = sorted(size for t, size in rates if t == tool)
        ref = rates.get((tool, base))
        for size in sizes:
            rate, rss, n = rates[(tool, size)]
            vs = f"{rate / ref[0]:.2f}" if ref else ""
            rows.append([tool, fmt_size(size), str(n), fmt_rate(rate), vs, f"{rss:.1f}"])
    return rows


def pair_rows(tables, groups, errors, status, medians):
    """For each side-by-side table: (title, header, rows), a row per task and size."""
    out = []
    for name, cells in tables.items():
        peers = list(dict.fromkeys(tool for (task, size, tool) in list(groups) + list(status)
                                   if (task, size) in cells and tool not in ("jsonsql", "answer")))
        peer = peers[0] if peers else "peer"
        header = ["query", "size", "runs", "jsonsql", peer, "jsonsql/peer", "jsonsql peak MB",
                  "peer peak MB", "answer"]
        rows = []

        def side(task, size, tool):
            key = (task, size, tool)
            if key in status:
                return status[key], "", "", None
            runs = groups.get(key)
            if key in errors:
                return "ERROR", "", str(len(runs or [])), None
            if not runs:
                return "", "", "", None
            wall = medians[key]
            return fmt_time(wall), f"{max(r['rss'] for r in runs) / 1048576:.1f}", str(len(runs)), wall

        for task, size in cells:
            t_js, m_js, n_js, w_js = side(task, size, "jsonsql")
            t_pe, m_pe, n_pe, w_pe = side(task, size, peer)
            ratio = f"{w_js / w_pe:.2f}" if w_js is not None and w_pe else ""
            runs = n_js if n_js == n_pe or not n_pe else (f"{n_js}/{n_pe}" if n_js else n_pe)
            rows.append([task, fmt_size(size), runs, t_js, t_pe, ratio, m_js, m_pe,
                         status.get((task, size, "answer"), "")])
        out.append((name, header, rows))
    return out


def cmd_report(a):
    key_in_table = set()
    groups = {}  # (task, size, tool) -> list of runs, in first-seen order
    errors = set()
    status = {}  # (task, size, tool) -> text
    tables = {}  # table name -> {(task, size): None}, in first-seen order
    with open(a.results) as f:
        for line in f:
            r = json.loads(line)
            key = (r["task"], r["size"], r["tool"])
            if r.get("table"):
                tables.setdefault(r["table"], {})[(r["task"], r["size"])] = None
                key_in_table.add(key)
            if "status" in r:
                status[key] = r["status"]
                continue
            groups.setdefault(key, [])
            if "error" in r:
                errors.add(key)
            else:
                groups[key].append(r)

    header = ["task", "size", "tool", "runs", "median wall", "cpu (user+sys)", "rows/s", "peak MB",
              "jsonsql/peer"]
    right = {3, 4, 5, 6, 7, 8}
    rows = []
    medians = {}
    for key, runs in groups.items():
        if runs:
            medians[key] = statistics.median(r["wall"] for r in runs)
    pairs = pair_rows(tables, groups, errors, status, medians)
    pair_legend = ("jsonsql/peer = jsonsql's median wall time divided by the peer's (below 1: jsonsql is faster); "
                   "peak MB = the largest peak RSS over the runs; answer: whether the two tools' answers agreed.")
    for key, runs in groups.items():
        task, size, tool = key
        if key in key_in_table:
            continue
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

    legend = ("jsonsql/peer = jsonsql's median wall time divided by the peer's (below 1: jsonsql is faster). "
              "peak MB = the largest peak RSS of the process over the runs.")
    scale = scale_rows(groups, errors, a.scale_task, a.scale_base) if a.scale_task else []
    scale_header = ["tool", "size", "runs", "rows/s", f"rows/s vs {fmt_size(a.scale_base)}", "peak MB"]
    scale_title = f"{a.scale_task}: rows/s by size (vs {fmt_size(a.scale_base)}: that tool's rows/s at this size / at {fmt_size(a.scale_base)})"

    for note in a.preamble or []:
        print(note)
    if a.preamble:
        print()
    if rows:
        print(text_table(header, rows, right))
        print("\n" + legend)
    if scale:
        print("\n" + scale_title + "\n")
        print(text_table(scale_header, scale, {2, 3, 4, 5}, group=1))
    for name, p_header, p_rows in pairs:
        print(f"\n{name}\n")
        print(text_table(p_header, p_rows, {2, 3, 4, 5, 6, 7}, group=0))
        print("\n" + pair_legend)
    for note in a.note or []:
        print("\n" + note)

    if a.markdown:
        with open(a.markdown, "w") as f:
            if a.title:
                f.write(f"## {a.title}\n\n")
            for note in a.preamble or []:
                f.write(f"{note}\n\n")
            if rows:
                f.write(markdown_table(header, rows, right) + "\n")
                f.write("\n" + legend + "\n")
            if scale:
                f.write(f"\n{scale_title}\n\n")
                f.write(markdown_table(scale_header, scale, {2, 3, 4, 5}) + "\n")
            for name, p_header, p_rows in pairs:
                f.write(f"\n### {name}\n\n")
                f.write(markdown_table(p_header, p_rows, {2, 3, 4, 5, 6, 7}) + "\n")
                f.write("\n" + pair_legend + "\n")
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
    r.add_argument("--slow", type=float)
    r.add_argument("--prep")
    r.add_argument("--stdout", default=os.devnull)
    r.add_argument("--table")
    r.add_argument("command", nargs=argparse.REMAINDER)
    t = sub.add_parser("status")
    for opt in ("--results", "--task", "--tool", "--status"):
        t.add_argument(opt, required=True)
    t.add_argument("--size", required=True, type=int)
    t.add_argument("--table")
    s = sub.add_parser("report")
    s.add_argument("--results", required=True)
    s.add_argument("--markdown")
    s.add_argument("--title")
    s.add_argument("--preamble", action="append")
    s.add_argument("--note", action="append")
    s.add_argument("--scale-task")
    s.add_argument("--scale-base", type=int, default=1_000_000)
    a = p.parse_args()
    sys.exit({"run": cmd_run, "status": cmd_status, "report": cmd_report}[a.cmd](a))


if __name__ == "__main__":
    main()
