#!/usr/bin/env python3
"""The shapes rows of bench/run.sh: real query shapes on a data file, jsonsql against DuckDB.

Each query is written once here for both tools: jsonsql's arguments (after `jsonsql query FILE`,
or `jsonsql describe FILE`) and DuckDB's SQL on read_json_auto(FILE), with how to compare them.

usage: shapes.py keys SHAPE                     the queries' keys, one a line (SHAPE: events, players)
       shapes.py bash SHAPE                     for bench/run.sh to eval: q_keys=(KEY...), and for
                                                each KEY q_title[KEY] (the row's name in the results
                                                table), q_verb[KEY] (query or describe) and
                                                q_args[KEY] (jsonsql's arguments after FILE, quoted)
       shapes.py show SHAPE KEY                 both command lines, as the results' notes print them
       shapes.py duck SHAPE KEY FILE OUT        runs DuckDB's side: COPY (SQL) TO OUT (FORMAT JSON);
                                                for describe, SUMMARIZE written to OUT
       shapes.py check SHAPE KEY JSONSQL DUCK [--results FILE --size N --table NAME]
                                                compares the two outputs (JSON Lines); exit 1 and a
                                                message on standard error when they differ. With
                                                --results, appends the answer (same, DIFFERENT) as a
                                                status record of bench/measure.py

Comparison: both files are parsed as JSON rows. "values" rows are compared by their values in
column order (the tools name columns differently: "count()" against "count_star()"); "records"
rows are whole records, compared after dropping keys whose value is null (DuckDB prints every key
of the schema it inferred, null where a record lacks it, and jsonsql prints the record as stored)
and writing timestamps one way (DuckDB reads "2024-03-01T00:00:02Z" as a TIMESTAMP WITH TIME ZONE
and prints "2024-03-01 00:00:02+00"). Rows are compared as multisets, or in order where the query
sorts. Numbers are compared exactly (1.0 equals 1, as in JSON), except avg(), to 1e-9 relative;
true never equals 1.

jsonsql's semantics, and the SQL that gives the same answer in DuckDB:
  - a missing path is null in both; `p = v` is false for it, as SQL's NULL = v is;
  - `p contains v` is list_contains (DuckDB reads an array of strings as VARCHAR[]);
  - `p[3] exists` is p[4] IS NOT NULL (DuckDB's lists count from 1; no element is null here);
  - `like` in jsonsql (SQLite's LIKE) ignores the case of ASCII letters: ILIKE;
  - sorting on count() desc alone leaves ties in any order, so both break them by the key.
"""
import datetime
import json
import math
import re
import shlex
import sys

# key: (title, jsonsql arguments, DuckDB SQL with {src} for read_json_auto(FILE), compare)
# compare: "records" or "values", "sorted" when the query fixes the order, avg=COLUMN indexes
# compared to 1e-9 relative; None for describe (both must succeed; no answer to compare).
EVENTS = {
    "eq": ("nested string =",
           ["--where", "org.login = acme", "--format", "jsonl"],
           "SELECT * FROM {src} WHERE org.login = 'acme'",
           "records"),
    "range": ("numeric range",
              ["--where", "payload.issue.comments >= 10 and payload.issue.comments < 20", "--format", "jsonl"],
              "SELECT * FROM {src} WHERE payload.issue.comments >= 10 AND payload.issue.comments < 20",
              "records"),
    "contains": ("array contains",
                 ["--where", "payload.issue.labels contains bug", "--format", "jsonl"],
                 "SELECT * FROM {src} WHERE list_contains(payload.issue.labels, 'bug')",
                 "records"),
    "element": ("element exists",
                ["--where", "payload.commits[3] exists", "--format", "jsonl"],
                "SELECT * FROM {src} WHERE payload.commits[4] IS NOT NULL",
                "records"),
    "length": ("array length",
               ["--where", "length(payload.commits) > 10", "--format", "jsonl"],
               "SELECT * FROM {src} WHERE len(payload.commits) > 10",
               "records"),
    "like": ("like",
             ["--where", "payload.commits[0].message like 'fix%'", "--format", "jsonl"],
             "SELECT * FROM {src} WHERE payload.commits[1].message ILIKE 'fix%'",
             "records"),
    "top": ("count per repo.name, top 10",
            ["--group-by", "repo.name", "--select", "repo.name,count()",
             "--order-by", "count():desc", "--order-by", "repo.name", "--limit", "10", "--format", "jsonl"],
            "SELECT repo.name, count(*) FROM {src} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10",
            "values sorted"),
    "two": ("count per type, payload.action",
            ["--group-by", "type,payload.action", "--select", "type,payload.action,count()", "--format", "jsonl"],
            "SELECT type, payload.action, count(*) FROM {src} GROUP BY 1, 2",
            "values"),
    "agg": ("min/max/avg per type",
            ["--group-by", "type", "--select",
             "type,count(),min(payload.issue.comments),max(payload.issue.comments),avg(payload.issue.comments)",
             "--format", "jsonl"],
            "SELECT type, count(*), min(payload.issue.comments), max(payload.issue.comments), "
            "avg(payload.issue.comments) FROM {src} GROUP BY 1",
            "values avg=4"),
    "order": ("top 10 by payload.pull_request.additions",
              ["--order-by", "payload.pull_request.additions:desc", "--order-by", "id", "--limit", "10",
               "--format", "jsonl"],
              "SELECT * FROM {src} ORDER BY payload.pull_request.additions DESC NULLS LAST, id LIMIT 10",
              "records sorted"),
    "select": ("3 paths of every record",
               ["--select", "id,actor.login,payload.size", "--format", "jsonl"],
               "SELECT id, actor.login, payload.size FROM {src}",
               "values"),
    "describe": ("describe", None, "SUMMARIZE SELECT * FROM {src}", None),
}

PLAYERS = {
    "eq": ("nested string =",
           ["--where", "address.city = Berlin", "--format", "jsonl"],
           "SELECT * FROM {src} WHERE address.city = 'Berlin'",
           "records"),
    "range": ("numeric range",
              ["--where", "score >= 90000 and score < 92000", "--format", "jsonl"],
              "SELECT * FROM {src} WHERE score >= 90000 AND score < 92000",
              "records"),
    "contains": ("array contains",
                 ["--where", "tags contains pro", "--format", "jsonl"],
                 "SELECT * FROM {src} WHERE list_contains(tags, 'pro')",
                 "records"),
    "element": ("element exists",
                ["--where", "tags[2] exists", "--format", "jsonl"],
                "SELECT * FROM {src} WHERE tags[3] IS NOT NULL",
                "records"),
    "length": ("array length",
               ["--where", "length(tags) > 1", "--format", "jsonl"],
               "SELECT * FROM {src} WHERE len(tags) > 1",
               "records"),
    "like": ("like",
             ["--where", "name like '%dent%'", "--format", "jsonl"],
             "SELECT * FROM {src} WHERE name ILIKE '%dent%'",
             "records"),
    "top": ("count per address.zip, top 10",
            ["--group-by", "address.zip", "--select", "address.zip,count()",
             "--order-by", "count():desc", "--order-by", "address.zip", "--limit", "10", "--format", "jsonl"],
            "SELECT address.zip, count(*) FROM {src} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10",
            "values sorted"),
    "two": ("count per address.country, active",
            ["--group-by", "address.country,active", "--select", "address.country,active,count()",
             "--format", "jsonl"],
            "SELECT address.country, active, count(*) FROM {src} GROUP BY 1, 2",
            "values"),
    "agg": ("min/max/avg per address.country",
            ["--group-by", "address.country", "--select",
             "address.country,min(score),max(score),avg(rating)", "--format", "jsonl"],
            "SELECT address.country, min(score), max(score), avg(rating) FROM {src} GROUP BY 1",
            "values avg=3"),
    "order": ("top 10 by score",
              ["--order-by", "score:desc", "--order-by", "id", "--limit", "10", "--format", "jsonl"],
              "SELECT * FROM {src} ORDER BY score DESC NULLS LAST, id LIMIT 10",
              "records sorted"),
    "select": ("3 paths of every record",
               ["--select", "id,address.city,score", "--format", "jsonl"],
               "SELECT id, address.city, score FROM {src}",
               "values"),
    "describe": ("describe", None, "SUMMARIZE SELECT * FROM {src}", None),
}

SHAPES = {"events": EVENTS, "players": PLAYERS}


def query(shape, key):
    try:
        return SHAPES[shape][key]
    except KeyError:
        sys.exit(f"shapes.py: no query {key!r} for shape {shape!r}")


def source(path):
    return "read_json_auto('" + path.replace("'", "''") + "')"


def sh(words):
    """A command line as one would type it in a POSIX shell."""
    out = []
    for w in words:
        out.append(w if re.fullmatch(r"[A-Za-z0-9_./:=,-]+", w) else "'" + w.replace("'", "'\\''") + "'")
    return " ".join(out)


# --- comparison -------------------------------------------------------------------------------

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d(:?\d\d)?)?")


def canonical(v):
    """A value in one spelling, for comparing: nulls dropped from objects, timestamps in UTC with
    a Z, integral floats as integers (JSON does not tell 1.0 from 1), booleans tagged so that
    true never equals 1."""
    if isinstance(v, dict):
        return {k: canonical(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [canonical(x) for x in v]
    if isinstance(v, bool):
        return "<%s>" % str(v).lower()
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        return int(v)
    if isinstance(v, str) and TIMESTAMP.fullmatch(v):
        t = datetime.datetime.fromisoformat(v.replace("Z", "+00:00"))
        if t.tzinfo is not None:
            t = t.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return t.isoformat() + "Z"
    return v


def rows_of(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    stripped = text.lstrip()
    if stripped.startswith("["):  # a JSON array, as --format json prints
        return json.loads(stripped)
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as e:
                raise SystemExit(f"shapes.py: {path}, line {n}: not JSON ({e}): {line[:200]}")
    return rows


def same(a, b, approx):
    """Rows equal; the columns in approx (avg) to 1e-9 relative."""
    if not approx:
        return a == b
    if len(a) != len(b):
        return False
    for i, (x, y) in enumerate(zip(a, b)):
        if i in approx and isinstance(x, (int, float)) and isinstance(y, (int, float)):
            if not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12):
                return False
        elif x != y:
            return False
    return True


def sort_key(row, approx):
    if approx:
        row = [float("%.6g" % x) if i in approx and isinstance(x, (int, float)) else x for i, x in enumerate(row)]
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def show(row):
    return json.dumps(row, ensure_ascii=False)[:300]


def difference(x, y, path="$"):
    """Where two values first differ: (path, x there, y there), or None."""
    if isinstance(x, dict) and isinstance(y, dict):
        for k in list(x) + [k for k in y if k not in x]:
            if k not in x or k not in y:
                return (f"{path}.{k}", x.get(k, "(missing)"), y.get(k, "(missing)"))
            d = difference(x[k], y[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (a, b) in enumerate(zip(x, y)):
            d = difference(a, b, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if x == y else (path, x, y)


def check(shape, key, mine, theirs):
    """(exit status, the answer for the results table)."""
    title, _, _, how = query(shape, key)
    if how is None:
        return 0, "both ran (not compared)"
    words = how.split()
    ordered = "sorted" in words
    approx = {int(w.split("=")[1]) for w in words if w.startswith("avg=")}
    a, b = rows_of(mine), rows_of(theirs)
    if words[0] == "records":
        a = [canonical(r) for r in a]
        b = [canonical(r) for r in b]
    else:
        a = [canonical(list(r.values())) for r in a]
        b = [canonical(list(r.values())) for r in b]
    problem = ""
    if len(a) != len(b):
        problem = f"jsonsql printed {len(a)} rows, DuckDB {len(b)}"
    if not ordered:
        a.sort(key=lambda r: sort_key(r, approx))
        b.sort(key=lambda r: sort_key(r, approx))
    if not problem:
        for i, (x, y) in enumerate(zip(a, b)):
            if not same(x, y, approx):
                problem = (f"row {i + 1}{'' if ordered else ' (sorted)'} differs:\n"
                           f"  jsonsql: {show(x)}\n  DuckDB:  {show(y)}")
                d = difference(x, y) if not approx else None
                if d:
                    problem += f"\n  first at {d[0]}: jsonsql {show(d[1])}, DuckDB {show(d[2])}"
                break
    if problem and len(a) != len(b):
        # Name a few rows that only one tool printed.
        sa = {sort_key(r, approx) for r in a}
        sb = {sort_key(r, approx) for r in b}
        only_a, only_b = sorted(sa - sb)[:3], sorted(sb - sa)[:3]
        if only_a:
            problem += "\n  only jsonsql: " + "\n                ".join(x[:300] for x in only_a)
        if only_b:
            problem += "\n  only DuckDB:  " + "\n                ".join(x[:300] for x in only_b)
    if problem:
        print(f"ERROR: {shape}: {title}: the answers differ: {problem}", file=sys.stderr)
        return 1, "DIFFERENT"
    return 0, f"same ({len(a)} rows)"


def duck(shape, key, path, out):
    import duckdb  # only here: the other commands run without the module
    _, _, sql, how = query(shape, key)
    con = duckdb.connect()
    sql = sql.format(src=source(path))
    if how is None:
        with open(out, "w", encoding="utf-8") as f:
            for row in con.execute(sql).fetchall():
                f.write(repr(row) + "\n")
    else:
        con.execute(f"COPY ({sql}) TO '{out.replace(chr(39), chr(39) * 2)}' (FORMAT JSON)")


def main(argv):
    if len(argv) < 2 or argv[1] not in SHAPES:
        sys.exit(__doc__)
    cmd, shape = argv[0], argv[1]
    if cmd == "keys":
        print("\n".join(SHAPES[shape]))
    elif cmd == "bash" and len(argv) == 2:
        print("q_keys=(%s)" % " ".join(SHAPES[shape]))
        for key, (title, args, _, _) in SHAPES[shape].items():
            print("q_title[%s]=%s" % (key, shlex.quote(f"{shape}: {title}")))
            print("q_verb[%s]=%s" % (key, "describe" if args is None else "query"))
            print("q_args[%s]=%s" % (key, shlex.quote(" ".join(shlex.quote(a) for a in args or []))))
    elif cmd == "show" and len(argv) == 3:
        title, args, sql, _ = query(shape, argv[2])
        js = sh(["jsonsql", "describe", "FILE"] if args is None else ["jsonsql", "query", "FILE", *args])
        print(f"{shape}: {title}: `{js}`; DuckDB `{sql.format(src='read_json_auto(FILE)')}`")
    elif cmd == "duck" and len(argv) == 5:
        duck(shape, argv[2], argv[3], argv[4])
    elif cmd == "check" and len(argv) in (5, 11):
        code, answer = check(shape, argv[2], argv[3], argv[4])
        if len(argv) == 11:
            opts = dict(zip(argv[5::2], argv[6::2]))
            record = {"task": f"{shape}: {query(shape, argv[2])[0]}", "size": int(opts["--size"]),
                      "tool": "answer", "status": answer, "table": opts["--table"]}
            with open(opts["--results"], "a") as f:
                f.write(json.dumps(record) + "\n")
        sys.exit(code)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
