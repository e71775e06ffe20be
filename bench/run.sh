#!/usr/bin/env bash
# Side-by-side benchmark: jsonsql against sqlite3, sqlite-utils, DuckDB and jq.
#
# usage: bench/run.sh [--tiny] [--sizes N,N...] [--big N] [--full-peers] [--runs N]
#                     [--startup-runs N] [--slow S] [--tasks LIST] [--out DIR]
#
#   --tiny            2,000 and 3,000 records (3,000 counts as large), 1 run, 5 start-up runs:
#                     every row once, as a smoke test for CI (well under a minute)
#   --sizes 100000,1000000,10000000   record counts (this is the default); the data is
#                     generated once and kept in OUT/data (10M: 2.6 GB of NDJSON)
#   --big N           sizes above N are large (default 1000000): they run only
#                     insert, index and the start-up query; the insert peers only with --full-peers
#   --full-peers      at large sizes, also insert with the sqlite3 shell (json_each(readfile())
#                     holds the whole file: ~10 GB of memory at 10M) and sqlite-utils (~7 min at 10M)
#   --runs N          timed runs per tool and task; the table shows the median (default 3)
#   --startup-runs N  runs of each start-up command (default 50)
#   --slow S          a command that takes longer than S seconds runs only once (default 20)
#   --out DIR         data, databases and results (default bench/out)
#   --tasks LIST      some of insert,index,filter,export,startup,file,shapes,postgres,search (default: all)
#
# Environment: JSONSQL (default .build/release/jsonsql), SQLITE3 (default sqlite3), PSQL (default psql),
# SQLITE_UTILS (default: the one pip installs; installed with pip when missing), PYTHON
# (default python3; DuckDB's Python module is installed with pip when missing), JQ (default jq),
# GEN_PLAYERS (default ../shared/bench/gen_players.py beside the repository).
# A peer that cannot be installed is left out, with a note in the results.
#
# Tasks, each run on the same machine in one go, at every size unless said otherwise:
#   insert        NDJSON into a new table with a text primary key
#                 (sqlite3: INSERT ... SELECT value->>... FROM json_each(readfile(ARRAY FILE)))
#   index         `jsonsql index DB player address.country` against the sqlite3 shell's
#                 CREATE INDEX on the expression jsonsql reports in `jsonsql indexes`, each on
#                 a fresh copy of jsonsql's database
#   filter        address.country = 'DE', without and with an index on that path, as JSON (up to --big);
#                 three times --runs, each run taking tens of milliseconds
#   export json   the whole table as JSON (up to --big)
#   export table  the whole table as an aligned text table (up to --big)
#   startup       a real query, `jsonsql query DB player --limit 1`, against `sqlite3 DB 'SELECT *
#                 FROM player LIMIT 1'` (and -json), at every size; and, once, `jsonsql --version`
#                 against `sqlite3 -version`. The tools take turns, one run each, against drift.
#   file          the NDJSON file without a database (up to --big): the DE filter as JSON lines
#                 to a file, a count per country, and describe; against DuckDB (read_json_auto,
#                 SUMMARIZE), the sqlite3 shell (.import as one text column, then ->>), jq and
#                 `sqlite-utils memory` / `analyze-tables`
#   shapes        (up to --big) real query shapes on two NDJSON files of N records each: events
#                 (bench/gen_events.py N, seeded: GitHub-style events whose payload's shape depends
#                 on type, org missing from ~28%, payload.commits an array of objects, nulls,
#                 payload.size an integer or a string; ~700 bytes a record) and the players file.
#                 On each, jsonsql (`jsonsql query FILE ... --format jsonl` in memory mode, to a
#                 file) against DuckDB (`COPY (SQL on read_json_auto(FILE)) TO OUT (FORMAT JSON)`):
#                 string = on a nested path; a numeric range; `contains` on an array; an array
#                 element exists (`payload.commits[3] exists`); array length (`length(p) > N`);
#                 `like`; count per a high-cardinality key, top 10; count per two keys;
#                 min/max/avg per group; top 10 by a numeric path; 3 paths of every record; and
#                 `describe` against SUMMARIZE. bench/shapes.py holds both sides of every query
#                 (`bench/shapes.py show SHAPE KEY` prints them) and checks that the answers agree;
#                 a query jsonsql refuses (exit 1 or 64 on 20 records) shows as "not supported".
#                 The table shows each query with both tools' median, the ratio and peak memory.
#   postgres      (up to --big) on a throwaway PostgreSQL server that Tests/postgres-server.sh
#                 starts (as the tests do; its settings, printed with the results, apply to both
#                 tools): insert the NDJSON into a new table, against psql's `\copy` of the same
#                 rows pre-converted to COPY text (exported from jsonsql's table, untimed) into an
#                 empty table LIKE jsonsql's; and the DE filter with jsonsql's index on the path,
#                 as JSON, against psql running the same SQL with row_to_json into a file.
#                 Goals (issue 17): insert at least 0.7x \copy's rows/s (jsonsql/peer <= 1.43),
#                 filter within 1.3x psql's time. Skipped, with a note, when no server can start.
#   search        (up to --big) full-text search (docs/search.md), on the players' name and bio
#                 and the events' payload.commits[].message: `jsonsql index DB T --text PATHS`
#                 against the same FTS5 index built by hand in the sqlite3 shell (jsonsql's view,
#                 FTS5 table and triggers, then INSERT INTO T_fts(T_fts) VALUES('rebuild')) and
#                 against `sqlite-utils enable-fts --fts5 --create-triggers` (columns only: the
#                 players); a one-word search (the word of the first path whose rows are nearest
#                 1%, from fts5vocab), unordered and --order-by rank, as JSON, against the sqlite3
#                 shell's FTS5 join and `sqlite-utils search`; the same search on PostgreSQL (GIN
#                 index) against psql running the same SQL; and insert into an empty table with a
#                 text index on bio against without one. Goals (issue 39): build <= 1.2x sqlite3,
#                 faster than sqlite-utils; search <= 1.0x sqlite3 and <= 0.2x sqlite-utils;
#                 PostgreSQL <= 1.3x psql; insert with the index >= 0.5x the rate without.
# The database tasks all read the database that jsonsql created, so every tool reads the same
# file. Output goes to /dev/null, or for the file rows to files whose line counts are compared
# (for the shapes rows, whose answers are compared).
# Results: a table on standard output and in OUT/results.md; every run in OUT/results.jsonl.
# No time limits: the exit status is non-zero only when a tool fails or tools disagree.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

args="$*"
sizes="100000,1000000,10000000"
big_from=1000000
full_peers=0
runs=3
startup_runs=50
slow=20
out="$here/out"
tiny=0
tasks="insert,index,filter,export,startup,file,shapes,postgres,search"
while [ $# -gt 0 ]; do
    case "$1" in
        --tiny) tiny=1; sizes="2000,3000"; big_from=2000; runs=1; startup_runs=5 ;;
        --sizes) sizes="$2"; shift ;;
        --sizes=*) sizes="${1#*=}" ;;
        --big) big_from="$2"; shift ;;
        --big=*) big_from="${1#*=}" ;;
        --full-peers) full_peers=1 ;;
        --runs) runs="$2"; shift ;;
        --runs=*) runs="${1#*=}" ;;
        --startup-runs) startup_runs="$2"; shift ;;
        --startup-runs=*) startup_runs="${1#*=}" ;;
        --slow) slow="$2"; shift ;;
        --slow=*) slow="${1#*=}" ;;
        --tasks) tasks="$2"; shift ;;
        --tasks=*) tasks="${1#*=}" ;;
        --out) out="$2"; shift ;;
        --out=*) out="${1#*=}" ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench/run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$runs$startup_runs$big_from$slow" in ''|*[!0-9]*) echo "bench/run.sh: --runs, --startup-runs, --big and --slow take whole numbers" >&2; exit 2 ;; esac
[ "$runs" -ge 1 ] && [ "$startup_runs" -ge 1 ] && [ "$slow" -ge 1 ] || { echo "bench/run.sh: --runs, --startup-runs and --slow must be 1 or more" >&2; exit 2; }
sizes=${sizes//,/ }
for t in ${tasks//,/ }; do
    case "$t" in insert|index|filter|export|startup|file|shapes|postgres|search) ;; *) echo "bench/run.sh: unknown task $t (insert, index, filter, export, startup, file, shapes, postgres, search)" >&2; exit 2 ;; esac
done
want() { case ",$tasks," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
needs_db() { want index || want filter || want export || want startup || want file || want search; }  # jsonsql's SQLite database
for n in $sizes; do
    case "$n" in ''|*[!0-9]*) echo "bench/run.sh: --sizes takes numbers, e.g. 100000,1000000" >&2; exit 2 ;; esac
done

abspath() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
JSONSQL=$(cd "$root" && abspath "${JSONSQL:-.build/release/jsonsql}")
SQLITE3=${SQLITE3:-sqlite3}
GEN=${GEN_PLAYERS:-$(dirname "$root")/shared/bench/gen_players.py}
MEASURE="$here/measure.py"
SHAPES="$here/shapes.py"
shapes_table="Real query shapes on NDJSON files: jsonsql against DuckDB (read_json_auto)"
unsupported=()
PY=${PYTHON:-python3}

die() { echo "bench/run.sh: $*" >&2; exit 2; }
[ -x "$JSONSQL" ] || die "no jsonsql binary at $JSONSQL; run 'make release' or set JSONSQL"
[ -f "$GEN" ] || die "no data generator at $GEN; set GEN_PLAYERS"
command -v "$PY" >/dev/null || die "python3 is needed for timing"
command -v "$SQLITE3" >/dev/null || die "no sqlite3 shell; run 'make deps'"

notes=()

# sqlite-utils: installed with pip when missing; the columns are skipped when that fails.
# The real script is used rather than a pyenv shim, whose own start-up would be timed too.
find_sqlite_utils() {
    local scripts
    scripts=$("$PY" -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null) || scripts=""
    if [ -n "$scripts" ] && [ -x "$scripts/sqlite-utils" ]; then echo "$scripts/sqlite-utils"; return 0; fi
    command -v sqlite-utils 2>/dev/null
}
SU=${SQLITE_UTILS:-}
if [ -z "$SU" ]; then
    SU=$(find_sqlite_utils) || SU=""
    if [ -z "$SU" ] || ! "$SU" --version >/dev/null 2>&1; then
        echo "installing sqlite-utils with pip ..." >&2
        if "$PY" -m pip install --quiet --disable-pip-version-check sqlite-utils >&2; then
            SU=$(find_sqlite_utils) || SU=""
        fi
    fi
fi
if [ -n "$SU" ] && "$SU" --version >/dev/null 2>&1; then
    su_version=$("$SU" --version 2>/dev/null | awk '{print $NF}')
else
    SU=""
    su_version="not available"
    if [ -n "${SQLITE_UTILS:-}" ]; then
        notes+=("sqlite-utils (\$SQLITE_UTILS=$SQLITE_UTILS) does not run, so its rows are missing.")
    else
        notes+=("sqlite-utils could not be installed (pip install sqlite-utils failed), so its rows are missing.")
    fi
    echo "bench/run.sh: sqlite-utils is not available; skipping its rows" >&2
fi

# DuckDB's Python module: installed with pip when missing. jq: `make bench-deps` installs it.
if ! "$PY" -c 'import duckdb' >/dev/null 2>&1; then
    echo "installing duckdb with pip ..." >&2
    # A failed install is reported here and leaves DuckDB's rows out below, with a note.
    if ! "$PY" -m pip install --quiet --disable-pip-version-check duckdb >&2; then
        echo "bench/run.sh: pip install duckdb failed" >&2
    fi
fi
if duck_version=$("$PY" "$here/duck.py" version 2>/dev/null); then
    DUCK=1
else
    DUCK=0
    duck_version="not available"
    notes+=("DuckDB could not be installed (pip install duckdb failed), so its rows are missing.")
    echo "bench/run.sh: DuckDB is not available; skipping its rows" >&2
fi
JQ=${JQ:-jq}
if jq_version=$("$JQ" --version 2>/dev/null); then
    :
else
    JQ=""
    jq_version="not available"
    notes+=("jq is not installed (make bench-deps installs it as root; or apt-get install jq), so its rows are missing.")
    echo "bench/run.sh: jq is not available; skipping its rows" >&2
fi

# PostgreSQL: a throwaway server from Tests/postgres-server.sh (the one the tests use), started
# when the first size reaches the postgres task; its rows are skipped, with a note, when psql is
# missing or the server cannot start.
PSQL=${PSQL:-psql}
pg_state=""  # "", "up" or "skipped"
pg_start() {
    case "$pg_state" in up) return 0 ;; skipped) return 1 ;; esac
    local why="" log="$out/tmp/pg-start.log"
    if ! command -v "$PSQL" >/dev/null 2>&1; then
        why="there is no psql (make deps installs PostgreSQL)"
    elif ! PG_HOST=$("$root/Tests/postgres-server.sh" start $$ 2>"$log"); then
        why="Tests/postgres-server.sh could not start a server: $(tail -n 3 "$log" | tr '\n' ' ')"
    else
        trap '"$root/Tests/postgres-server.sh" stop "$PG_HOST" >/dev/null 2>&1' EXIT
        export PSQL PG_HOST
        pg_sql() { PGOPTIONS="-c client_min_messages=warning" "$PSQL" -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -U postgres -d jsonsql_bench -A -t -c "$1"; }
        export -f pg_sql
        pg_psql=("$PSQL" -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -U postgres -d jsonsql_bench)
        pg_url="postgresql://postgres@$("$PY" -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$PG_HOST")/jsonsql_bench"
        if ! "$PSQL" -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -U postgres -d postgres -c 'CREATE DATABASE jsonsql_bench' 2>"$log"; then
            why="CREATE DATABASE failed: $(tail -n 3 "$log" | tr '\n' ' ')"
        fi
    fi
    rm -f "$log"
    if [ -n "$why" ]; then
        pg_state=skipped
        echo "postgres: skipped: $why" >&2
        notes+=("PostgreSQL rows skipped: $why.")
        return 1
    fi
    pg_state=up
    pg_version=$(pg_sql 'SHOW server_version' | awk '{print $1}')
    pg_settings=$(pg_sql "SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_wal_size', 'wal_level')")
    echo "postgres: PostgreSQL $pg_version, a throwaway server (Tests/postgres-server.sh) on a unix socket: $pg_settings; jsonsql and psql on the same server" >&2
    return 0
}

mkdir -p "$out/data" "$out/db" "$out/tmp"
results="$out/results.jsonl"
: >"$results"
failed=0
started=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# measure TASK SIZE TOOL ROWS [measure.py options...] -- COMMAND...
measure() {
    local task="$1" size="$2" tool="$3" rows="$4"
    shift 4
    local rowopt=()
    [ -n "$rows" ] && rowopt=(--rows "$rows")
    "$PY" "$MEASURE" run --results "$results" --task "$task" --size "$size" --tool "$tool" --slow "$slow" \
        "${rowopt[@]}" "$@" || { failed=1; return 1; }
}
section() { echo "   ($1: $(( $(date +%s) - $2 )) s)" >&2; }

sq_version=$("$SQLITE3" -version | awk '{print $1}')
js_version=$("$JSONSQL" --version 2>/dev/null) || { echo "bench/run.sh: $JSONSQL --version failed" >&2; failed=1; js_version="?"; }
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
machine="$(nproc) cores, ${cpu:-unknown CPU}, $(free -g 2>/dev/null | awk '/^Mem:/ {print $2 " GB RAM, "}')$(uname -sr)"
versions="jsonsql $js_version, sqlite3 $sq_version, sqlite-utils $su_version, DuckDB $duck_version, $jq_version"
echo "$versions ($JSONSQL)"
echo "machine: $machine; load average at start $load_start"
echo "sizes: $sizes; $runs run(s) per task, median shown; start-up: $startup_runs runs"
echo

q() { printf '%q' "$1"; }  # quotes a path for the --prep shell strings

columns="id TEXT PRIMARY KEY, name TEXT, score INTEGER, rating REAL, active INTEGER, address TEXT, tags TEXT, created TEXT, bio TEXT"
filter_sql="SELECT * FROM player WHERE address ->> '\$.country' = 'DE'"
big_seen=0

for n in $sizes; do
    big=0
    [ "$n" -gt "$big_from" ] && big=1 && big_seen=1
    # Large sizes get as many runs as the others: their insert rate is compared with 1M's median,
    # and one run of a 10M insert varied by a third with the kernel's time for writes.
    r_n=$runs
    insert_peers=1
    [ "$big" = 1 ] && [ "$full_peers" = 0 ] && insert_peers=0
    t0=$(date +%s)

    nd="$out/data/players-$n.ndjson"
    arr="$out/data/players-$n.json"
    files=("$nd")
    want insert && [ "$insert_peers" = 1 ] && files+=("$arr")  # only the sqlite3 shell reads the array
    for f in "${files[@]}"; do
        if [ ! -s "$f" ]; then
            echo "generating $f ..." >&2
            flag=""
            [ "$f" = "$arr" ] && flag="--array"
            "$PY" "$GEN" "$n" $flag >"$f.tmp" && mv "$f.tmp" "$f" || die "gen_players.py $n $flag failed"
        fi
    done
    echo "== $n records: $(du -hL "$nd" | cut -f1) NDJSON$([ "$big" = 1 ] && echo ", large: insert/index/start-up only")" >&2
    cat "${files[@]}" >/dev/null  # into the page cache, so that no tool pays for the first read

    # 1. insert. The runs go round-robin over the tools, so that background load hits all alike.
    db_js="$out/db/jsonsql-$n.db"
    db_su="$out/db/sqlite-utils-$n.db"
    db_sq="$out/db/sqlite3-$n.db"
    insert_sql="INSERT INTO player SELECT value->>'id', value->>'name', value->>'score', value->>'rating', value->>'active', value->'address', value->'tags', value->>'created', value->>'bio' FROM json_each(readfile('${arr//\'/\'\'}'))"
    want insert || ! needs_db || [ -s "$db_js" ] || {
        echo "   (no $db_js from an earlier run: inserting once, untimed, for the other tasks)" >&2
        "$JSONSQL" insert "$db_js" player "$nd" --pk id -q 2>/dev/null || { echo "ERROR: jsonsql insert failed" >&2; failed=1; }
    }
    want insert && for ((r = 1; r <= r_n; r++)); do
        echo "   insert, run $r/$r_n" >&2
        # Each --prep also reads the input into the page cache, untimed (see the file task).
        measure insert "$n" jsonsql "$n" --prep "rm -f $(q "$db_js")* && cat $(q "$nd") >/dev/null" -- "$JSONSQL" insert "$db_js" player "$nd" --pk id
        [ "$insert_peers" = 1 ] || continue
        measure insert "$n" "sqlite3 json_each" "$n" \
            --prep "rm -f $(q "$db_sq")* && cat $(q "$arr") >/dev/null && $(q "$SQLITE3") $(q "$db_sq") $(q "CREATE TABLE player ($columns)")" \
            -- "$SQLITE3" "$db_sq" "$insert_sql"
        if [ -n "$SU" ]; then
            measure insert "$n" sqlite-utils "$n" --prep "rm -f $(q "$db_su")* && cat $(q "$nd") >/dev/null" \
                -- "$SU" insert "$db_su" player "$nd" --nl --pk id
        fi
    done
    if want insert; then
        dbs=("$db_js")
        [ "$insert_peers" = 1 ] && dbs+=("$db_sq" ${SU:+"$db_su"})
        for db in "${dbs[@]}"; do
            count=$("$SQLITE3" "$db" 'SELECT count(*) FROM player' 2>/dev/null)
            if [ "$count" != "$n" ]; then
                echo "ERROR: $db holds ${count:-no} rows, expected $n" >&2
                failed=1
            fi
        done
        section "insert at $n" "$t0"
    fi
    { want insert || needs_db; } && [ ! -s "$db_js" ] && { echo "ERROR: jsonsql created no database; skipping the other tasks for $n" >&2; failed=1; continue; }

    # 2. index a path, each run on a fresh copy of jsonsql's database (copying is untimed).
    # The sqlite3 shell builds the index on the very expression jsonsql reports for it.
    if want index; then
        t1=$(date +%s)
        db_ix="$out/db/index-$n.db"
        prep_ix="rm -f $(q "$db_ix")* && cp $(q "$db_js") $(q "$db_ix") && sync"
        ix_expr=""
        for ((r = 1; r <= r_n; r++)); do
            echo "   index, run $r/$r_n" >&2
            measure "index a path" "$n" jsonsql "$n" --prep "$prep_ix" -- "$JSONSQL" index "$db_ix" player address.country
            if [ -z "$ix_expr" ]; then
                ix_expr=$("$JSONSQL" indexes "$db_ix" player --format json 2>/dev/null | "$PY" -c '
import json, sys
print(next(i["indexed"] for i in json.load(sys.stdin) if i["paths"] == "address.country"))' 2>/dev/null)
                [ -n "$ix_expr" ] || { echo "ERROR: jsonsql indexes lists no index on address.country" >&2; failed=1; break; }
            fi
            measure "index a path" "$n" "sqlite3 CREATE INDEX" "$n" --prep "$prep_ix" \
                -- "$SQLITE3" "$db_ix" "CREATE INDEX player_on_address_country ON player ($ix_expr)"
        done
        if [ -n "$ix_expr" ]; then
            plan=$("$SQLITE3" "$db_ix" "EXPLAIN QUERY PLAN $filter_sql" 2>&1)
            case "$plan" in *"USING INDEX player_on_address_country"*) ;; *)
                notes+=("At $n records the filter did not use the index the sqlite3 shell built on \`$ix_expr\`: $(echo "$plan" | tr '\n' ' ')") ;;
            esac
        fi
        rm -f "$db_ix"*
        section "index at $n" "$t1"
    fi

    # 3. a real query's start-up: the first row of the table.
    if want startup; then
        t1=$(date +%s)
        echo "   start-up of query --limit 1, $startup_runs runs each" >&2
        task="start-up: query --limit 1"
        # Runs of milliseconds: the machine's speed drifts over the seconds a block of them takes,
        # so the tools take turns, one run each, and drift falls on all of them alike.
        for ((r = 0; r < startup_runs; r++)); do
            warm=(--repeat 1)
            [ "$r" = 0 ] && warm=(--warmup 1 --repeat 1)
            measure "$task" "$n" jsonsql "" "${warm[@]}" -- "$JSONSQL" query "$db_js" player --limit 1
            measure "$task" "$n" sqlite3 "" "${warm[@]}" -- "$SQLITE3" "$db_js" 'SELECT * FROM player LIMIT 1'
            measure "$task" "$n" "sqlite3 -json" "" "${warm[@]}" -- "$SQLITE3" -json "$db_js" 'SELECT * FROM player LIMIT 1'
        done
        [ -n "$SU" ] && measure "$task" "$n" "sqlite-utils rows --limit 1" "" --warmup 1 --repeat "$(( startup_runs < 10 ? startup_runs : 10 ))" \
            -- "$SU" rows "$db_js" player --limit 1
        section "start-up query at $n" "$t1"
    fi

    [ "$big" = 1 ] && continue

    if want filter || want export; then
        t1=$(date +%s)
        # The query tasks read copies of jsonsql's database: one without, one with the index.
        db_plain="$out/db/query-$n.db"
        db_idx="$out/db/query-indexed-$n.db"
        rm -f "$db_plain"* "$db_idx"*
        cp "$db_js" "$db_plain"
        cp "$db_js" "$db_idx"
        "$JSONSQL" index "$db_idx" player address.country >/dev/null 2>&1 \
            || { echo "ERROR: jsonsql index $db_idx player address.country failed" >&2; failed=1; }
        plan_sq=$("$SQLITE3" "$db_idx" "EXPLAIN QUERY PLAN $filter_sql" 2>&1)
        plan_js=$("$JSONSQL" query "$db_idx" player --where 'address.country=DE' --explain 2>&1)
        case "$plan_sq" in *"USING INDEX"*) ;; *)
            notes+=("At $n records the sqlite3 shell's filter did not use jsonsql's index: $(echo "$plan_sq" | tr '\n' ' ')") ;;
        esac
        case "$plan_js" in *"USING INDEX"*|*"USING COVERING INDEX"*) ;; *)
            notes+=("At $n records jsonsql's filter did not use its index: $(echo "$plan_js" | tr '\n' ' ')") ;;
        esac
        expect=$("$SQLITE3" "$db_plain" "SELECT count(*) FROM ($filter_sql)")
        got=$("$JSONSQL" query "$db_idx" player --where 'address.country=DE' --format jsonl 2>/dev/null | wc -l)
        if [ "$got" != "$expect" ]; then
            echo "ERROR: jsonsql's filter printed $got rows, sqlite3 counts $expect" >&2
            failed=1
        fi

        # 4. filter, 5. export. One untimed warm-up run each, then round-robin runs.
        for task in "filter (no index)" "filter (indexed)" "export json" "export table"; do
            case "$task" in filter*) want filter || continue ;; export*) want export || continue ;; esac
            db="$db_plain"
            [ "$task" = "filter (indexed)" ] && db="$db_idx"
            rows=""
            case "$task" in export*) rows="$n" ;; esac
            # A filter takes tens of milliseconds, where one run's noise is a large part of it:
            # three times the runs (the median still shown).
            t_n=$r_n
            case "$task" in filter*) t_n=$((r_n * 3)) ;; esac
            for ((r = 0; r <= t_n; r++)); do
                [ "$r" -gt 0 ] && echo "   $task, run $r/$t_n" >&2
                warm=()
                [ "$r" = 0 ] && warm=(--warmup 1 --repeat 0)
                case "$task" in
                    filter*)
                        measure "$task" "$n" jsonsql "$rows" "${warm[@]}" -- "$JSONSQL" query "$db" player --where 'address.country=DE' --format json
                        measure "$task" "$n" "sqlite3 -json" "$rows" "${warm[@]}" -- "$SQLITE3" -json "$db" "$filter_sql"
                        [ -n "$SU" ] && measure "$task" "$n" "sqlite-utils query" "$rows" "${warm[@]}" -- "$SU" query "$db" "$filter_sql"
                        ;;
                    "export json")
                        measure "$task" "$n" jsonsql "$rows" "${warm[@]}" -- "$JSONSQL" query "$db" player --format json
                        measure "$task" "$n" "sqlite3 -json" "$rows" "${warm[@]}" -- "$SQLITE3" -json "$db" 'SELECT * FROM player'
                        [ -n "$SU" ] && measure "$task" "$n" "sqlite-utils rows" "$rows" "${warm[@]}" -- "$SU" rows "$db" player
                        ;;
                    "export table")
                        measure "$task" "$n" jsonsql "$rows" "${warm[@]}" -- "$JSONSQL" query "$db" player --format table
                        measure "$task" "$n" "sqlite3 -table" "$rows" "${warm[@]}" -- "$SQLITE3" -table "$db" 'SELECT * FROM player'
                        measure "$task" "$n" "sqlite3 -column" "$rows" "${warm[@]}" -- "$SQLITE3" -column "$db" 'SELECT * FROM player'
                        [ -n "$SU" ] && measure "$task" "$n" "sqlite-utils rows -t" "$rows" "${warm[@]}" -- "$SU" rows -t "$db" player
                        ;;
                esac
            done
        done
        section "filter and export at $n" "$t1"
    fi

    # 6. the NDJSON file without a database. Each tool writes its rows to a file; the line
    # counts must agree. Round-robin runs; before each, the file is read into the page cache
    # (untimed): a VM's memory reclaim can evict it between runs, and no tool should pay for
    # reading the disk.
    measure_warm() { cat "$nd" >/dev/null; measure "$@"; }
    if want file; then
        t1=$(date +%s)
        tmp="$out/tmp"
        ndq=${nd//\\/\\\\}
        ndq=${ndq//\"/\\\"}  # for the sqlite3 shell's .import "FILE"
        sq_load=("$SQLITE3" :memory: 'CREATE TABLE t(j TEXT)' '.mode ascii' '.separator "\037" "\n"' ".import \"$ndq\" t" '.mode list')
        for task in "file: filter to JSON lines" "file: count per country" "file: describe"; do
            rm -f "$tmp"/*
            for ((r = 1; r <= r_n; r++)); do
                echo "   $task, run $r/$r_n" >&2
                case "$task" in
                    *filter*)
                        measure_warm "$task" "$n" jsonsql "$n" --stdout "$tmp/jsonsql" -- "$JSONSQL" query "$nd" --where 'address.country=DE' --format jsonl
                        [ "$DUCK" = 1 ] && measure_warm "$task" "$n" "duckdb read_json_auto" "$n" -- "$PY" "$here/duck.py" filter "$nd" "$tmp/duckdb"
                        measure_warm "$task" "$n" "sqlite3 .import + ->>" "$n" --stdout "$tmp/sqlite3" \
                            -- "${sq_load[@]}" "SELECT j FROM t WHERE j ->> '\$.address.country' = 'DE'"
                        [ -n "$JQ" ] && measure_warm "$task" "$n" "jq select" "$n" --stdout "$tmp/jq" -- "$JQ" -c 'select(.address.country == "DE")' "$nd"
                        [ -n "$SU" ] && measure_warm "$task" "$n" "sqlite-utils memory" "$n" --stdout "$tmp/sqlite-utils" \
                            -- "$SU" memory "$nd:nl" "SELECT * FROM t WHERE address ->> '\$.country' = 'DE'" --nl
                        ;;
                    *country*)
                        measure_warm "$task" "$n" jsonsql "$n" --stdout "$tmp/jsonsql" \
                            -- "$JSONSQL" query "$nd" --group-by address.country --select 'address.country,count()' --format jsonl
                        [ "$DUCK" = 1 ] && measure_warm "$task" "$n" "duckdb read_json_auto" "$n" -- "$PY" "$here/duck.py" group "$nd" "$tmp/duckdb"
                        measure_warm "$task" "$n" "sqlite3 .import + ->>" "$n" --stdout "$tmp/sqlite3" \
                            -- "${sq_load[@]}" "SELECT j ->> '\$.address.country', count(*) FROM t GROUP BY 1"
                        [ -n "$JQ" ] && measure_warm "$task" "$n" "jq -s group_by" "$n" --stdout "$tmp/jq" \
                            -- "$JQ" -s -c 'group_by(.address.country)[] | {country: .[0].address.country, count: length}' "$nd"
                        [ -n "$SU" ] && measure_warm "$task" "$n" "sqlite-utils memory" "$n" --stdout "$tmp/sqlite-utils" \
                            -- "$SU" memory "$nd:nl" "SELECT address ->> '\$.country' AS country, count(*) AS count FROM t GROUP BY 1" --nl
                        ;;
                    *describe*)
                        measure_warm "$task" "$n" jsonsql "$n" -- "$JSONSQL" describe "$nd"
                        [ "$DUCK" = 1 ] && measure_warm "$task" "$n" "duckdb SUMMARIZE" "$n" -- "$PY" "$here/duck.py" summarize "$nd"
                        # analyze-tables reads jsonsql's database (loading is not timed), and runs once.
                        [ -n "$SU" ] && [ "$r" = 1 ] && measure_warm "$task" "$n" "sqlite-utils analyze-tables" "$n" \
                            -- "$SU" analyze-tables "$db_js" player
                        ;;
                esac
            done
            case "$task" in *describe*) continue ;; esac
            counts=""
            for f in "$tmp"/*; do counts+="$(basename "$f") $(wc -l <"$f"), "; done
            if [ "$(for f in "$tmp"/*; do wc -l <"$f"; done | sort -u | wc -l)" != 1 ]; then
                echo "ERROR: $task at $n: the tools' outputs differ in line count: ${counts%, }" >&2
                failed=1
            fi
        done
        rm -f "$tmp"/*
        section "file rows at $n" "$t1"
    fi

    # 7. real query shapes on two NDJSON files, events (bench/gen_events.py) and players, jsonsql
    # against DuckDB, each query written once for both in bench/shapes.py. Each tool writes its
    # answer to a file; shapes.py check compares the two. Round-robin runs, the file read into the
    # page cache before each (untimed), as for the file rows.
    if want shapes; then
        t1=$(date +%s)
        tmp="$out/tmp"
        ev="$out/data/events-$n.ndjson"
        if [ ! -s "$ev" ]; then
            echo "generating $ev ..." >&2
            "$PY" "$here/gen_events.py" "$n" --out "$ev.tmp" && mv "$ev.tmp" "$ev" || die "gen_events.py $n failed"
        fi
        echo "== shapes at $n records: events $(du -hL "$ev" | cut -f1), players $(du -hL "$nd" | cut -f1) of NDJSON" >&2
        for shape in events players; do
            f="$ev"
            [ "$shape" = players ] && f="$nd"
            probe="$out/data/$shape-probe.ndjson"  # the first 20 records, to try a spelling on
            sed -n '1,20p' "$f" >"$probe"
            declare -A q_title=() q_verb=() q_args=()
            q_keys=()
            code=$("$PY" "$SHAPES" bash "$shape") && eval "$code" || die "bench/shapes.py bash $shape failed"
            for key in "${q_keys[@]}"; do
                task=${q_title[$key]}
                eval "qargs=(${q_args[$key]})"
                rm -f "$tmp"/*
                # A spelling that jsonsql refuses (exit 1 or 64: an error message, not a crash) is
                # "not supported": DuckDB still runs, and the run goes on.
                js_ok=1
                "$JSONSQL" "${q_verb[$key]}" "$probe" "${qargs[@]}" >/dev/null 2>"$tmp/probe.err"
                rc=$?
                if [ "$rc" = 1 ] || [ "$rc" = 64 ]; then
                    js_ok=0
                    why=$(sed -n '1p' "$tmp/probe.err")
                    echo "   $task: jsonsql refuses it, so not supported: $why" >&2
                    "$PY" "$MEASURE" status --results "$results" --table "$shapes_table" --task "$task" --size "$n" \
                        --tool jsonsql --status "not supported"
                    unsupported+=("$task: \`jsonsql ${q_verb[$key]} FILE ${q_args[$key]}\` exits with $rc: $why")
                elif [ "$rc" != 0 ]; then
                    echo "ERROR: $task: jsonsql ${q_verb[$key]} $probe ${qargs[*]} exited with $rc: $(tail -n 3 "$tmp/probe.err")" >&2
                    failed=1
                fi
                rm -f "$tmp/probe.err"
                dk_ok=$DUCK
                for ((r = 1; r <= r_n; r++)); do
                    echo "   $task, run $r/$r_n" >&2
                    if [ "$js_ok" = 1 ]; then
                        cat "$f" >/dev/null
                        measure "$task" "$n" jsonsql "" --table "$shapes_table" --stdout "$tmp/jsonsql" \
                            -- "$JSONSQL" "${q_verb[$key]}" "$f" "${qargs[@]}" || js_ok=0
                    fi
                    if [ "$dk_ok" = 1 ]; then
                        cat "$f" >/dev/null
                        measure "$task" "$n" "duckdb read_json_auto" "" --table "$shapes_table" \
                            -- "$PY" "$SHAPES" duck "$shape" "$key" "$f" "$tmp/duckdb" || dk_ok=0
                    fi
                done
                if [ "$js_ok$dk_ok" = 11 ]; then  # the check records the answer (or "both ran", for describe)
                    "$PY" "$SHAPES" check "$shape" "$key" "$tmp/jsonsql" "$tmp/duckdb" \
                        --results "$results" --size "$n" --table "$shapes_table" || failed=1
                else
                    answer="not compared"
                    [ "$DUCK" = 0 ] && answer="no peer"
                    "$PY" "$MEASURE" status --results "$results" --table "$shapes_table" \
                        --task "$task" --size "$n" --tool answer --status "$answer"
                fi
            done
            rm -f "$probe"
        done
        rm -f "$tmp"/*
        section "shapes at $n" "$t1"
    fi

    # 8. PostgreSQL (up to --big): insert and an indexed filter on one throwaway server, jsonsql
    # against psql on the same server, so its settings apply to both.
    if want postgres && pg_start; then
        t1=$(date +%s)
        # psql's reference loads jsonsql's own rows, exported as COPY text (untimed), into a table
        # made LIKE jsonsql's (the same columns, types and primary key), created untimed.
        export PG_COPY_FILE="$out/tmp/pg-players-$n.copy"
        rm -f "$PG_COPY_FILE"
        copy_file_sql="'${PG_COPY_FILE//\'/\'\'}'"
        for ((r = 1; r <= r_n; r++)); do
            echo "   postgres insert, run $r/$r_n" >&2
            measure "postgres insert" "$n" jsonsql "$n" --prep 'pg_sql "DROP TABLE IF EXISTS player"' \
                -- "$JSONSQL" insert "$pg_url" player "$nd" --pk id
            measure "postgres insert" "$n" 'psql \copy' "$n" \
                --prep "{ [ -s \"\$PG_COPY_FILE\" ] || pg_sql $(q "\\copy player TO $copy_file_sql"); } && pg_sql 'DROP TABLE IF EXISTS player_copy; CREATE TABLE player_copy (LIKE player INCLUDING ALL)'" \
                -- "${pg_psql[@]}" -c "\\copy player_copy FROM $copy_file_sql"
        done
        for table in player player_copy; do
            count=$(pg_sql "SELECT count(*) FROM $table" 2>/dev/null)
            [ "$count" = "$n" ] || { echo "ERROR: PostgreSQL table $table holds ${count:-no} rows, expected $n" >&2; failed=1; }
        done
        pg_sql "DROP TABLE IF EXISTS player_copy" >/dev/null
        rm -f "$PG_COPY_FILE"

        # The filter reads jsonsql's table with jsonsql's index on the path; psql runs the same
        # query as SQL, each row as JSON (row_to_json), into a file. Both plans must use the index.
        tmp="$out/tmp"
        rm -f "$tmp"/*
        pg_filter="SELECT row_to_json(r) FROM (SELECT * FROM player WHERE (address -> 'country') = '\"DE\"'::jsonb) r"
        if "$JSONSQL" index "$pg_url" player address.country >/dev/null 2>&1 && pg_sql "ANALYZE player" >/dev/null; then
            plan_js=$("$JSONSQL" query "$pg_url" player --where 'address.country=DE' --explain 2>&1)
            plan_pg=$(pg_sql "EXPLAIN $pg_filter" 2>&1)
            case "$plan_js" in *"Index Scan on player_on_address_country"*) ;; *)
                notes+=("At $n records jsonsql's PostgreSQL filter did not use its index: $(echo "$plan_js" | tr '\n' ' ')") ;;
            esac
            case "$plan_pg" in *"Index Scan on player_on_address_country"*) ;; *)
                notes+=("At $n records psql's PostgreSQL filter did not use jsonsql's index: $(echo "$plan_pg" | tr '\n' ' ')") ;;
            esac
        else
            echo "ERROR: jsonsql index $pg_url player address.country failed" >&2
            failed=1
            pg_filter=""
        fi
        if [ -n "$pg_filter" ]; then
            for ((r = 0; r <= r_n; r++)); do
                [ "$r" -gt 0 ] && echo "   postgres filter (indexed), run $r/$r_n" >&2
                warm=()
                [ "$r" = 0 ] && warm=(--warmup 1 --repeat 0)
                measure "postgres filter (indexed)" "$n" jsonsql "" "${warm[@]}" --stdout "$tmp/jsonsql" \
                    -- "$JSONSQL" query "$pg_url" player --where 'address.country=DE' --format json
                measure "postgres filter (indexed)" "$n" "psql row_to_json" "" "${warm[@]}" --stdout "$tmp/psql" \
                    -- "${pg_psql[@]}" -A -t -c "$pg_filter"
            done
            got=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/jsonsql" 2>/dev/null)
            expect=$(wc -l <"$tmp/psql")
            if [ "$got" != "$expect" ]; then
                echo "ERROR: postgres filter at $n: jsonsql printed ${got:-no} rows, psql $expect" >&2
                failed=1
            fi
        fi
        rm -f "$tmp"/*
        pg_sql "DROP TABLE IF EXISTS player" >/dev/null
        section "postgres at $n" "$t1"
    fi

    # 9. search (up to --big): a text index on the players' name and bio and on the events'
    # commit messages, built by jsonsql against the same FTS5 index built by hand in the sqlite3
    # shell and against sqlite-utils enable-fts; a one-word search of about 1% of the rows as
    # JSON against the sqlite3 shell's FTS5 query and sqlite-utils search; the same on
    # PostgreSQL against psql; and the insert rate with a text index against without one.
    if want search; then
        t1=$(date +%s)
        tmp="$out/tmp"
        rm -f "$tmp"/*
        db_sx="$out/db/search-$n.db"        # jsonsql's index (kept for the searches)
        db_sb="$out/db/search-build-$n.db"  # each build run's fresh copy
        db_ss="$out/db/search-su-$n.db"     # sqlite-utils' index (kept for its searches)
        ev="$out/data/events-$n.ndjson"
        db_ev="$out/db/events-$n.db"
        db_evx="$out/db/search-events-$n.db"
        if [ ! -s "$ev" ]; then
            echo "generating $ev ..." >&2
            "$PY" "$here/gen_events.py" "$n" --out "$ev.tmp" && mv "$ev.tmp" "$ev" || die "gen_events.py $n failed"
        fi
        [ -s "$db_ev" ] || "$JSONSQL" insert "$db_ev" event "$ev" --pk id -q 2>/dev/null \
            || { echo "ERROR: jsonsql insert $db_ev event failed" >&2; failed=1; }
        # The sqlite3 shell's hand-built index: the statements jsonsql's index consists of (its
        # view, FTS5 table and triggers, read from the database), then 'rebuild', in one
        # transaction as jsonsql's.
        hand_sql() {  # DB TABLE: the script, from a database where jsonsql made TABLE_fts
            "$SQLITE3" "$1" "SELECT sql || ';' FROM sqlite_schema WHERE name = '$2_fts_content' UNION ALL SELECT sql || ';' FROM sqlite_schema WHERE name = '$2_fts' UNION ALL SELECT sql || ';' FROM sqlite_schema WHERE type = 'trigger' AND name GLOB '$2_fts_*'" \
                | { echo 'BEGIN;'; cat; echo "INSERT INTO $2_fts($2_fts) VALUES('rebuild');"; echo 'COMMIT;'; }
        }
        # The word (letters, not a number) of COLUMN whose rows are nearest 1% of them, from the
        # index's vocabulary.
        pick_word() {  # DB FTS COLUMN
            "$SQLITE3" "$1" "CREATE VIRTUAL TABLE temp.jsonsql_vocab USING fts5vocab(main, '$2', col); SELECT term FROM temp.jsonsql_vocab WHERE col = '$3' AND term GLOB '[a-z]*' ORDER BY abs(doc - $n / 100.0), term LIMIT 1"
        }
        for shape in players events; do
            if [ "$shape" = players ]; then
                src="$db_js" table=player paths=(name bio) dbx="$db_sx"
            else
                src="$db_ev" table=event paths=("payload.commits[].message") dbx="$db_evx"
            fi
            prep_b="rm -f $(q "$db_sb")* && cp $(q "$src") $(q "$db_sb") && sync"
            rm -f "$dbx"* "$db_ss"*
            cp "$src" "$dbx" && "$JSONSQL" index "$dbx" "$table" --text "${paths[@]}" >/dev/null \
                || { echo "ERROR: jsonsql index $dbx $table --text failed" >&2; failed=1; continue; }
            hand_sql "$dbx" "$table" >"$tmp/hand-$table.sql"
            for ((r = 1; r <= r_n; r++)); do
                echo "   search: build the $shape index, run $r/$r_n" >&2
                measure "text index build ($shape: ${paths[*]})" "$n" jsonsql "$n" --prep "$prep_b" \
                    -- "$JSONSQL" index "$db_sb" "$table" --text "${paths[@]}"
                measure "text index build ($shape: ${paths[*]})" "$n" "sqlite3 FTS5 rebuild" "$n" --prep "$prep_b" \
                    -- "$SQLITE3" "$db_sb" ".read $tmp/hand-$table.sql"
                # sqlite-utils indexes columns, not paths: the players' name and bio only.
                [ -n "$SU" ] && [ "$shape" = players ] && measure "text index build ($shape: ${paths[*]})" "$n" \
                    "sqlite-utils enable-fts" "$n" --prep "$prep_b" \
                    -- "$SU" enable-fts "$db_sb" "$table" "${paths[@]}" --fts5 --create-triggers
            done
            rm -f "$db_sb"*
            [ -n "$SU" ] && [ "$shape" = players ] && { cp "$src" "$db_ss" && "$SU" enable-fts "$db_ss" player name bio --fts5 --create-triggers \
                || { echo "ERROR: sqlite-utils enable-fts failed" >&2; failed=1; }; }

            # One word, about 1% of the rows, as JSON. The sqlite3 shell joins the table with the
            # FTS5 rows (as sqlite-utils search does); sqlite-utils searches its own index.
            search_path=${paths[0]}
            word=$(pick_word "$dbx" "${table}_fts" "$search_path")
            [ -n "$word" ] || { echo "ERROR: no word in ${table}_fts" >&2; failed=1; continue; }
            fts_sql="SELECT $table.* FROM $table JOIN ${table}_fts ON ${table}_fts.rowid = $table.rowid WHERE ${table}_fts.\"$search_path\" MATCH '$word'"
            for ranked in "" rank; do
                task="text search, 1 word ($shape: $search_path matches $word)"
                js_order=() sq_sql="$fts_sql" su_order=(-o rowid)
                if [ -n "$ranked" ]; then
                    task="text search --order-by rank ($shape: $search_path matches $word)"
                    js_order=(--order-by rank) sq_sql="$fts_sql ORDER BY ${table}_fts.rank" su_order=()
                fi
                for ((r = 0; r <= r_n * 3; r++)); do
                    [ "$r" -gt 0 ] && echo "   $task, run $r/$((r_n * 3))" >&2
                    warm=()
                    [ "$r" = 0 ] && warm=(--warmup 1 --repeat 0)
                    measure "$task" "$n" jsonsql "" "${warm[@]}" --stdout "$tmp/js.json" \
                        -- "$JSONSQL" query "$dbx" "$table" --where "$search_path matches $word" "${js_order[@]}" --format json
                    measure "$task" "$n" "sqlite3 -json FTS5" "" "${warm[@]}" --stdout "$tmp/sq.json" \
                        -- "$SQLITE3" -json "$dbx" "$sq_sql"
                    [ -n "$SU" ] && [ "$shape" = players ] && measure "$task" "$n" "sqlite-utils search" "" "${warm[@]}" --stdout "$tmp/su.json" \
                        -- "$SU" search "$db_ss" player "$word" -c "$search_path" "${su_order[@]}"
                done
                got=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/js.json" 2>/dev/null)
                expect=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/sq.json" 2>/dev/null)
                [ -n "$got" ] && [ "$got" = "$expect" ] || { echo "ERROR: $task: jsonsql printed ${got:-no} rows, sqlite3 ${expect:-none}" >&2; failed=1; }
                [ "$shape" = players ] && search_rows="$got of $n"
            done
            plan=$("$JSONSQL" query "$dbx" "$table" --where "$search_path matches $word" --explain 2>&1)
            case "$plan" in *"text index ${table}_fts (FTS5)"*) ;; *)
                notes+=("At $n records jsonsql's search did not use its text index: $(echo "$plan" | tr '\n' ' ')") ;;
            esac
        done

        # Insert with a text index on the bio against without one: into an empty table made with
        # jsonsql's own CREATE TABLE (untimed), with and without \`index --text bio\`.
        tpl="$out/db/search-empty-$n.db" tplx="$out/db/search-empty-indexed-$n.db" db_si="$out/db/search-insert-$n.db"
        rm -f "$tpl"* "$tplx"*
        "$SQLITE3" "$tpl" "$("$SQLITE3" "$db_js" "SELECT sql FROM sqlite_schema WHERE name = 'player'")" && cp "$tpl" "$tplx" \
            && "$JSONSQL" index "$tplx" player --text bio >/dev/null || { echo "ERROR: could not make $tplx" >&2; failed=1; }
        for ((r = 1; r <= r_n; r++)); do
            echo "   insert with and without a text index, run $r/$r_n" >&2
            measure "insert with a text index on bio" "$n" "jsonsql, no text index" "$n" --prep "rm -f $(q "$db_si")* && cp $(q "$tpl") $(q "$db_si") && cat $(q "$nd") >/dev/null" \
                -- "$JSONSQL" insert "$db_si" player "$nd"
            measure "insert with a text index on bio" "$n" jsonsql "$n" --prep "rm -f $(q "$db_si")* && cp $(q "$tplx") $(q "$db_si") && cat $(q "$nd") >/dev/null" \
                -- "$JSONSQL" insert "$db_si" player "$nd"
        done
        check=$("$SQLITE3" "$db_si" "INSERT INTO player_fts(player_fts) VALUES('integrity-check'); SELECT count(*) FROM player_fts WHERE player_fts MATCH 'towels'")
        expect=$("$SQLITE3" "$db_si" "SELECT count(*) FROM player WHERE bio LIKE '%towels%'")
        [ "$check" = "$expect" ] || { echo "ERROR: after the insert the text index finds ${check:-nothing}, the table holds $expect" >&2; failed=1; }
        rm -f "$tpl"* "$tplx"* "$db_si"*

        # PostgreSQL: the same word search on jsonsql's table there, with its GIN index, against
        # psql running the SQL jsonsql runs (its --explain) with the word written in.
        if pg_start; then
            pg_sql "DROP TABLE IF EXISTS player" >/dev/null
            if "$JSONSQL" insert "$pg_url" player "$nd" --pk id -q 2>/dev/null && "$JSONSQL" index "$pg_url" player --text name bio >/dev/null 2>&1 \
                && pg_sql "ANALYZE player" >/dev/null; then
                word=$(pick_word "$db_sx" player_fts name)
                task="postgres text search, 1 word (players: name matches $word)"
                pg_search="SELECT row_to_json(r) FROM (SELECT * FROM player WHERE to_tsvector('simple'::regconfig, \"name\") @@ to_tsquery('simple'::regconfig, '''$word''')) r"
                plan_js=$("$JSONSQL" query "$pg_url" player --where "name matches $word" --explain 2>&1)
                plan_pg=$(pg_sql "EXPLAIN $pg_search" 2>&1)
                case "$plan_js$plan_pg" in *"Index Scan on player_fts"*"Index Scan on player_fts"*) ;; *)
                    notes+=("At $n records a PostgreSQL search did not use the GIN index: jsonsql $(echo "$plan_js" | tr '\n' ' '); psql $(echo "$plan_pg" | tr '\n' ' ')") ;;
                esac
                for ((r = 0; r <= r_n * 3; r++)); do
                    [ "$r" -gt 0 ] && echo "   $task, run $r/$((r_n * 3))" >&2
                    warm=()
                    [ "$r" = 0 ] && warm=(--warmup 1 --repeat 0)
                    measure "$task" "$n" jsonsql "" "${warm[@]}" --stdout "$tmp/js.json" \
                        -- "$JSONSQL" query "$pg_url" player --where "name matches $word" --format json
                    measure "$task" "$n" "psql row_to_json" "" "${warm[@]}" --stdout "$tmp/psql" \
                        -- "${pg_psql[@]}" -A -t -c "$pg_search"
                done
                got=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/js.json" 2>/dev/null)
                expect=$(wc -l <"$tmp/psql")
                [ "$got" = "$expect" ] || { echo "ERROR: $task: jsonsql printed ${got:-no} rows, psql $expect" >&2; failed=1; }
            else
                echo "ERROR: jsonsql insert or index --text on PostgreSQL failed" >&2
                failed=1
            fi
            pg_sql "DROP TABLE IF EXISTS player" >/dev/null
        fi
        rm -f "$tmp"/* "$db_ss"*
        section "search at $n" "$t1"
    fi
done

# 9. start-up
if want startup; then
    echo "== start-up, $startup_runs runs" >&2
    for ((r = 0; r < startup_runs; r++)); do  # taking turns, as the start-up query above
        warm=(--repeat 1)
        [ "$r" = 0 ] && warm=(--warmup 1 --repeat 1)
        measure start-up 0 jsonsql "" "${warm[@]}" -- "$JSONSQL" --version
        measure start-up 0 "sqlite3 -version" "" "${warm[@]}" -- "$SQLITE3" -version
    done
    [ -n "$SU" ] && measure start-up 0 "sqlite-utils --version" "" --warmup 1 --repeat "$(( startup_runs < 10 ? startup_runs : 10 ))" -- "$SU" --version
    measure start-up 0 "(/bin/true: spawn floor)" "" --warmup 1 --repeat "$startup_runs" -- /bin/true
fi

echo
elapsed=$(( $(date +%s) - started ))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
notes+=("Runs: the median of $runs at every size ($((runs * 3)) for the filters); a command that took over $slow s runs once (the runs column says how many).")
if [ "$big_seen" = 1 ]; then
    if [ "$full_peers" = 1 ]; then
        notes+=("Above $big_from records (large sizes): insert with every peer, index and the start-up query; no filter, export or file rows.")
    else
        notes+=("Above $big_from records (large sizes): only jsonsql inserts (the sqlite3 shell's json_each(readfile()) holds the whole file, about 10 GB of memory at 10M, and sqlite-utils takes about 7 minutes: \`bench/run.sh --full-peers\` runs them); index and the start-up query run with their peers; no filter, export or file rows.")
    fi
fi
want insert && notes+=("Inserts: jsonsql \`insert DB player FILE.ndjson --pk id\`; sqlite-utils \`insert DB player FILE.ndjson --nl --pk id\` (default batch size); sqlite3 shell \`INSERT INTO player SELECT value->>'id', ..., value->'address', value->'tags', ... FROM json_each(readfile('FILE.json'))\` on the same records as one JSON array, into a table created beforehand (untimed) with the same columns. The rows/s-by-size table shows how the insert rate holds up as the table grows.")
want index && notes+=("Index a path: \`jsonsql index DB player address.country\` against the sqlite3 shell's \`CREATE INDEX player_on_address_country ON player (${ix_expr:-EXPR})\`, the expression \`jsonsql indexes\` reports for jsonsql's index, each on a fresh copy of jsonsql's database (copy untimed). rows/s is rows indexed per second.")
want startup && notes+=("Start-up: \"query --limit 1\" opens jsonsql's database and prints its first row: jsonsql \`query DB player --limit 1\` (JSON), sqlite3 \`DB 'SELECT * FROM player LIMIT 1'\` (and \`-json\`), sqlite-utils \`rows DB player --limit 1\`; \"start-up\" is \`jsonsql --version\` against \`sqlite3 -version\`. One warm-up run, then $startup_runs runs, the tools taking turns run by run so that the machine's drift falls on all alike (sqlite-utils: at most 10, after them).")
{ want filter || want export; } && notes+=("Filters and exports read one copy of the database jsonsql created; \"filter (indexed)\" reads a copy with \`jsonsql index DB player address.country\`. Filter: jsonsql \`query DB player --where address.country=DE --format json\`; sqlite3 \`-json\` and sqlite-utils \`query\` run \`$filter_sql\`. rows/s is records per second of the whole run (start-up included).")
want file && notes+=("File rows read the NDJSON file without a database (jsonsql's memory mode), output to a file: filter \`jsonsql query FILE --where address.country=DE --format jsonl\`; count per country \`jsonsql query FILE --group-by address.country --select 'address.country,count()' --format jsonl\`; \`jsonsql describe FILE\`. DuckDB: the Python module ($duck_version, start-up and import included) runs \`COPY (SELECT ... FROM read_json_auto(FILE) WHERE address.country = 'DE' / GROUP BY 1) TO OUT (FORMAT JSON)\` and \`SUMMARIZE\`. sqlite3: \`.import\` of the file as one text column into an in-memory table, then \`j ->> '\$.address.country'\`. jq: \`-c 'select(.address.country == \"DE\")'\` and \`-s 'group_by(.address.country)[] | {country, count: length}'\`. sqlite-utils: \`memory FILE:nl \"SELECT ... FROM t WHERE address ->> '\$.country' = 'DE'\" --nl\` (and GROUP BY); \`analyze-tables DB player\` on jsonsql's database (loading not timed), once. rows/s is input records per second.")
if want shapes; then
    shape_lines=""
    for shape in events players; do
        for key in $("$PY" "$SHAPES" keys "$shape"); do
            shape_lines+=$'\n'"- $("$PY" "$SHAPES" show "$shape" "$key")"
        done
    done
    notes+=("Real query shapes: two NDJSON files of the same record count, events from \`bench/gen_events.py N\` (GitHub-style events: payload shaped by type, org missing from 28%, arrays of objects, nulls, payload.size an integer or a string) and the players file. jsonsql reads the file in memory mode and writes JSON Lines to a file; DuckDB (the Python module, $duck_version, start-up and import included) runs \`COPY (SQL) TO OUT (FORMAT JSON)\` on read_json_auto(FILE), and SUMMARIZE for describe. bench/shapes.py holds both sides of each query and compares the answers (rows as multisets, or in order where the query sorts; whole records after dropping null keys and writing timestamps one way; avg to 1e-9 relative). The commands:$shape_lines")
    for u in "${unsupported[@]}"; do notes+=("Not supported by this jsonsql, so not timed: $u"); done
fi
[ "$pg_state" = up ] && want postgres && notes+=("PostgreSQL rows (up to $big_from records): PostgreSQL $pg_version, a throwaway server started by Tests/postgres-server.sh, on a unix socket, with $pg_settings; jsonsql and psql run on the same server, so these settings apply to both. Insert: jsonsql \`insert postgresql://... player FILE.ndjson --pk id\` (a new table, one COPY in one transaction) against psql \`\\copy player_copy FROM FILE\` of the same rows pre-converted to COPY text (psql's \`\\copy player TO FILE\` of jsonsql's table, untimed) into an empty table made \`LIKE player INCLUDING ALL\` (the same columns, types and primary key, untimed). Goal: jsonsql's rows/s at least 0.7x \\copy's, i.e. jsonsql/peer at most 1.43. Filter (indexed): \`jsonsql query postgresql://... player --where address.country=DE --format json\` after \`jsonsql index postgresql://... player address.country\` and ANALYZE, against psql \`-A -t -c 'SELECT row_to_json(r) FROM (SELECT * FROM player WHERE (address -> 'country') = '\"DE\"'::jsonb) r'\`, the SQL jsonsql's \`--explain\` shows with its parameter written in, so both use the same index; output to a file; one untimed warm-up each. Goal: jsonsql/peer at most 1.3.")
want search && notes+=("Search (docs/search.md): \`jsonsql index DB player --text name bio\` and \`jsonsql index DB event --text 'payload.commits[].message'\` on a fresh copy of jsonsql's database, against the sqlite3 shell running the same view, FTS5 table and triggers (read from jsonsql's database) and \`INSERT INTO T_fts(T_fts) VALUES('rebuild')\` in one transaction, and \`sqlite-utils enable-fts DB player name bio --fts5 --create-triggers\` (sqlite-utils indexes columns only, so not the events). The word searched is the one of the first path whose rows are nearest 1% of the table (fts5vocab); jsonsql \`query DB T --where 'PATH matches WORD' --format json\` (and \`--order-by rank\`) against \`sqlite3 -json DB \"SELECT T.* FROM T JOIN T_fts ON T_fts.rowid = T.rowid WHERE T_fts.PATH MATCH 'WORD'\"\` (and \`ORDER BY T_fts.rank\`) and \`sqlite-utils search DB player WORD -c name -o rowid\` (ranked: without -o) on its own index; row counts compared with sqlite3's. PostgreSQL: jsonsql's table and \`index --text name bio\` (GIN over to_tsvector('simple', ...)), ANALYZE, then \`jsonsql query URL player --where 'name matches WORD' --format json\` against psql running the SQL jsonsql runs with the word written in, through row_to_json, into a file. Insert: \`jsonsql insert DB player FILE.ndjson\` into an empty table made with jsonsql's CREATE TABLE, with \`index --text bio\` made beforehand (untimed) and without; the index is checked afterwards with FTS5's integrity-check. Goals (issue 39): build at most 1.2x sqlite3 and faster than sqlite-utils; search at most 1.0x sqlite3 and 0.2x sqlite-utils; PostgreSQL at most 1.3x psql; insert with the index at least 0.5x the rate without (jsonsql/peer at most 2).")
# rows/s by size is relative to the largest size up to 1M (the issue's reference), else the first.
scale_base=""
for n in $sizes; do [ "$n" -le 1000000 ] && { [ -z "$scale_base" ] || [ "$n" -gt "$scale_base" ]; } && scale_base=$n; done
[ -n "$scale_base" ] || scale_base=${sizes%% *}
"$PY" "$MEASURE" report --results "$results" --markdown "$out/results.md" \
    --title "jsonsql benchmark" --scale-task insert --scale-base "$scale_base" \
    --preamble "$versions." \
    --preamble "Machine: $machine; load average at start $load_start, at end $load_end; $(( elapsed / 60 )) min $(( elapsed % 60 )) s in all." \
    --preamble "Generated by \`bench/run.sh $args\` on $(date -u +%Y-%m-%d)." \
    "${notes[@]/#/--note=}" || failed=1
echo
echo "markdown: $out/results.md"
if [ "$failed" != 0 ]; then
    echo "bench/run.sh: a tool failed or the tools disagreed (see ERROR above)" >&2
    exit 1
fi
