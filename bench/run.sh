#!/usr/bin/env bash
# Side-by-side benchmark: jsonsql against sqlite-utils and the sqlite3 shell.
#
# usage: bench/run.sh [--tiny] [--sizes N,N...] [--runs N] [--startup-runs N] [--tasks LIST] [--out DIR]
#
#   --tiny            ~3000 records, 1 run, 5 start-up runs: a smoke test for CI (seconds)
#   --sizes 100000,1000000   record counts (default 100000,1000000)
#   --runs N          timed runs per tool and task; the table shows the median (default 3)
#   --startup-runs N  runs of `--version` for the start-up row (default 50)
#   --out DIR         data, databases and results (default bench/out)
#   --tasks LIST      some of insert,filter,export,startup (default: all)
#
# Environment: JSONSQL (default .build/release/jsonsql), SQLITE3 (default sqlite3),
# SQLITE_UTILS (default: the one pip installs; installed with pip when missing),
# GEN_PLAYERS (default ../shared/bench/gen_players.py beside the repository).
#
# Tasks, each run on the same machine in one go:
#   insert        NDJSON into a new table with a text primary key
#                 (sqlite3: INSERT ... SELECT value->>... FROM json_each(readfile(ARRAY FILE)))
#   filter        address.country = 'DE', without and with an index on that path, as JSON
#   export json   the whole table as JSON
#   export table  the whole table as an aligned text table
#   start-up      `jsonsql --version` against `sqlite3 -version`
# The query tasks all read the database that jsonsql created, so every tool reads the same
# file. Output goes to /dev/null. Results: a table on standard output and bench/out/results.md.
# No time limits: the exit status is non-zero only when a tool fails.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

args="$*"
sizes="100000,1000000"
runs=3
startup_runs=50
out="$here/out"
tiny=0
tasks="insert,filter,export,startup"
while [ $# -gt 0 ]; do
    case "$1" in
        --tiny) tiny=1; sizes=3000; runs=1; startup_runs=5 ;;
        --sizes) sizes="$2"; shift ;;
        --sizes=*) sizes="${1#*=}" ;;
        --runs) runs="$2"; shift ;;
        --runs=*) runs="${1#*=}" ;;
        --startup-runs) startup_runs="$2"; shift ;;
        --startup-runs=*) startup_runs="${1#*=}" ;;
        --tasks) tasks="$2"; shift ;;
        --tasks=*) tasks="${1#*=}" ;;
        --out) out="$2"; shift ;;
        --out=*) out="${1#*=}" ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench/run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$runs$startup_runs" in *[!0-9]*) echo "bench/run.sh: --runs and --startup-runs take numbers" >&2; exit 2 ;; esac
[ "$runs" -ge 1 ] && [ "$startup_runs" -ge 1 ] || { echo "bench/run.sh: --runs and --startup-runs must be 1 or more" >&2; exit 2; }
sizes=${sizes//,/ }
for t in ${tasks//,/ }; do
    case "$t" in insert|filter|export|startup) ;; *) echo "bench/run.sh: unknown task $t (insert, filter, export, startup)" >&2; exit 2 ;; esac
done
want() { case ",$tasks," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
for n in $sizes; do
    case "$n" in ''|*[!0-9]*) echo "bench/run.sh: --sizes takes numbers, e.g. 100000,1000000" >&2; exit 2 ;; esac
done

abspath() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
JSONSQL=$(cd "$root" && abspath "${JSONSQL:-.build/release/jsonsql}")
SQLITE3=${SQLITE3:-sqlite3}
GEN=${GEN_PLAYERS:-$(dirname "$root")/shared/bench/gen_players.py}
MEASURE="$here/measure.py"
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

mkdir -p "$out/data" "$out/db"
results="$out/results.jsonl"
: >"$results"
failed=0

# measure TASK SIZE TOOL ROWS [measure.py options...] -- COMMAND...
measure() {
    local task="$1" size="$2" tool="$3" rows="$4"
    shift 4
    local rowopt=()
    [ -n "$rows" ] && rowopt=(--rows "$rows")
    "$PY" "$MEASURE" run --results "$results" --task "$task" --size "$size" --tool "$tool" "${rowopt[@]}" "$@" \
        || failed=1
}

sq_version=$("$SQLITE3" -version | awk '{print $1}')
js_version=$("$JSONSQL" --version 2>/dev/null) || { echo "bench/run.sh: $JSONSQL --version failed" >&2; failed=1; js_version="?"; }
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
machine="$(nproc) cores, ${cpu:-unknown CPU}, $(uname -sr), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "jsonsql $js_version ($JSONSQL)"
echo "sqlite3 $sq_version, sqlite-utils $su_version"
echo "machine: $machine"
echo "sizes: $sizes; $runs run(s) per task, median shown; start-up: $startup_runs runs"
echo

q() { printf '%q' "$1"; }  # quotes a path for the --prep shell strings

columns="id TEXT PRIMARY KEY, name TEXT, score INTEGER, rating REAL, active INTEGER, address TEXT, tags TEXT, created TEXT, bio TEXT"
filter_sql="SELECT * FROM player WHERE address ->> '\$.country' = 'DE'"

for n in $sizes; do
    nd="$out/data/players-$n.ndjson"
    arr="$out/data/players-$n.json"
    for f in "$nd" "$arr"; do
        if [ ! -s "$f" ]; then
            echo "generating $f ..." >&2
            flag=""
            [ "$f" = "$arr" ] && flag="--array"
            "$PY" "$GEN" "$n" $flag >"$f.tmp" && mv "$f.tmp" "$f" || die "gen_players.py $n $flag failed"
        fi
    done
    echo "== $n records: $(du -h "$nd" | cut -f1) NDJSON" >&2

    # 1. insert. The runs go round-robin over the tools, so that background load hits all alike.
    db_js="$out/db/jsonsql-$n.db"
    db_su="$out/db/sqlite-utils-$n.db"
    db_sq="$out/db/sqlite3-$n.db"
    insert_sql="INSERT INTO player SELECT value->>'id', value->>'name', value->>'score', value->>'rating', value->>'active', value->'address', value->'tags', value->>'created', value->>'bio' FROM json_each(readfile('${arr//\'/\'\'}'))"
    want insert || [ -s "$db_js" ] || {
        echo "   (no $db_js from an earlier run: inserting once, untimed, for the query tasks)" >&2
        "$JSONSQL" insert "$db_js" player "$nd" --pk id -q 2>/dev/null || { echo "ERROR: jsonsql insert failed" >&2; failed=1; }
    }
    want insert && for ((r = 1; r <= runs; r++)); do
        echo "   insert, run $r/$runs" >&2
        measure insert "$n" jsonsql "$n" --prep "rm -f $(q "$db_js")*" -- "$JSONSQL" insert "$db_js" player "$nd" --pk id
        measure insert "$n" "sqlite3 json_each" "$n" \
            --prep "rm -f $(q "$db_sq")* && $(q "$SQLITE3") $(q "$db_sq") $(q "CREATE TABLE player ($columns)")" \
            -- "$SQLITE3" "$db_sq" "$insert_sql"
        if [ -n "$SU" ]; then
            measure insert "$n" sqlite-utils "$n" --prep "rm -f $(q "$db_su")*" \
                -- "$SU" insert "$db_su" player "$nd" --nl --pk id
        fi
    done
    want insert && for db in "$db_js" "$db_sq" ${SU:+"$db_su"}; do
        count=$("$SQLITE3" "$db" 'SELECT count(*) FROM player' 2>/dev/null)
        if [ "$count" != "$n" ]; then
            echo "ERROR: $db holds ${count:-no} rows, expected $n" >&2
            failed=1
        fi
    done
    want filter || want export || continue
    [ -s "$db_js" ] || { echo "ERROR: jsonsql created no database; skipping the query tasks for $n" >&2; failed=1; continue; }

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
    want=$("$SQLITE3" "$db_plain" "SELECT count(*) FROM ($filter_sql)")
    got=$("$JSONSQL" query "$db_idx" player --where 'address.country=DE' --format jsonl 2>/dev/null | wc -l)
    if [ "$got" != "$want" ]; then
        echo "ERROR: jsonsql's filter printed $got rows, sqlite3 counts $want" >&2
        failed=1
    fi

    # 2. filter, 3. export. One untimed warm-up run each, then round-robin runs.
    for task in "filter (no index)" "filter (indexed)" "export json" "export table"; do
        case "$task" in filter*) want filter || continue ;; export*) want export || continue ;; esac
        db="$db_plain"
        [ "$task" = "filter (indexed)" ] && db="$db_idx"
        rows=""
        case "$task" in export*) rows="$n" ;; esac
        for ((r = 0; r <= runs; r++)); do
            [ "$r" -gt 0 ] && echo "   $task, run $r/$runs" >&2
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
done

# 4. start-up
if want startup; then
    echo "== start-up, $startup_runs runs" >&2
    measure start-up 0 jsonsql "" --warmup 1 --repeat "$startup_runs" -- "$JSONSQL" --version
    measure start-up 0 "sqlite3 -version" "" --warmup 1 --repeat "$startup_runs" -- "$SQLITE3" -version
    [ -n "$SU" ] && measure start-up 0 "sqlite-utils --version" "" --warmup 1 --repeat "$(( startup_runs < 10 ? startup_runs : 10 ))" -- "$SU" --version
    measure start-up 0 "(/bin/true: spawn floor)" "" --warmup 1 --repeat "$startup_runs" -- /bin/true
fi

echo
want insert && notes+=("Inserts: jsonsql \`insert DB player FILE.ndjson --pk id\`; sqlite-utils \`insert DB player FILE.ndjson --nl --pk id\` (default batch size); sqlite3 shell \`INSERT INTO player SELECT value->>'id', ..., value->'address', value->'tags', ... FROM json_each(readfile('FILE.json'))\` on the same records as one JSON array, into a table created beforehand (untimed) with the same columns.")
{ want filter || want export; } && notes+=("Filters and exports read one copy of the database jsonsql created; \"filter (indexed)\" reads a copy with \`jsonsql index DB player address.country\`. Filter: jsonsql \`query DB player --where address.country=DE --format json\`; sqlite3 \`-json\` and sqlite-utils \`query\` run \`$filter_sql\`. rows/s is records per second of the whole run (start-up included).")
"$PY" "$MEASURE" report --results "$results" --markdown "$out/results.md" \
    --title "jsonsql benchmark" \
    --preamble "jsonsql $js_version, sqlite3 $sq_version, sqlite-utils $su_version; $machine. Median of $runs run(s); start-up: $startup_runs runs. Generated by \`bench/run.sh $args\` on $(date -u +%Y-%m-%d)." \
    "${notes[@]/#/--note=}" || failed=1
echo
echo "markdown: $out/results.md"
if [ "$failed" != 0 ]; then
    echo "bench/run.sh: a tool failed (see ERROR above)" >&2
    exit 1
fi
