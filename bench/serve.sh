#!/usr/bin/env bash
# make bench-serve: jsonsql serve beside Datasette on the same database and query, on loopback.
#   - requests per second, p99 latency and errors for a filtered page of 50 rows (an indexed
#     path) with wrk, 2 connections, DURATION seconds each (default 60); jsonsql's resident
#     memory sampled every 5 s over its run (flat or not);
#   - Datasette runs the same SQL jsonsql runs (read from its explain.txt), as JSON, with the
#     same index;
#   - a page of the events file's rows (bench/gen_events.py) in headless Chromium: the time to
#     the load event, the median of 5 loads.
# Usage: bench/serve.sh [JSONSQL]   (PLAYERS=N records, default 1000000; EVENTS=N, default 100000;
# DURATION=S). Results in bench/out/serve.md. Needs wrk and datasette (skipped with a note where
# absent) and Chromium (/usr/bin/chromium) for the page load.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
jsonsql=${1:-$root/.build/release/jsonsql}
players=${PLAYERS:-1000000}
events=${EVENTS:-100000}
duration=${DURATION:-60}
out=$root/bench/out
data=$out/data
work=$out/serve
mkdir -p "$data" "$work"
gen=${GEN_PLAYERS:-$(dirname "$root")/shared/bench/gen_players.py}
pids=()
# serve() runs in a command substitution, a subshell: its servers' pids are read from files.
cleanup() {
    for pid in "${pids[@]}" $(cat "$work"/pid-* 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
    rm -f "$work"/pid-*
}
trap cleanup EXIT

nd=$data/players-$players.ndjson
[ -f "$nd" ] || { python3 "$gen" "$players" > "$nd.tmp" && mv "$nd.tmp" "$nd"; }
db=$work/players-$players.sqlite
if [ ! -f "$db" ]; then
    "$jsonsql" insert "$db.tmp" player "$nd" --pk id >/dev/null
    "$jsonsql" index "$db.tmp" player address.country >/dev/null
    mv "$db.tmp" "$db"
fi
ev=$data/events-$events.ndjson
[ -f "$ev" ] || python3 "$here/gen_events.py" "$events" --out "$ev"

# Starts jsonsql serve on a free port; prints its base URL.
serve() {
    local banner=$work/banner-$1
    "$jsonsql" serve "$2" --port 0 > "$banner" 2>&1 &
    echo $! > "$work/pid-$1"
    for _ in $(seq 1 600); do grep -q "Ctrl-C stops" "$banner" && break; sleep 0.5; done
    sed -n 's|.* at \(http://[^/]*\)/.*|\1|p' "$banner"
}

# wrk's numbers: requests/s, p99, non-2xx and socket errors.
measure() {
    local url=$1 report=$2
    wrk -t 2 -c 2 -d "${duration}s" --latency "$url" > "$report"
    local rps p99 non2xx socket
    rps=$(awk '/Requests\/sec/ {print $2}' "$report")
    p99=$(awk '$1 == "99%" {print $2}' "$report")
    non2xx=$(awk '/Non-2xx/ {print $NF}' "$report"); non2xx=${non2xx:-0}
    socket=$(sed -n 's/.*Socket errors: //p' "$report"); socket=${socket:-none}
    echo "$rps|$p99|$non2xx|$socket"
}

filter='address.country = "DE"'
base=$(serve players "$db")
query="where=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$filter")&limit=50"
url="$base/player.json?$query"
curl -sf "$url" > "$work/jsonsql-page.json"
sql=$(curl -sf "$base/player/explain.txt?$query" | sed -n '1s/^-- //p')
echo "== jsonsql serve: $url ($duration s)" >&2
pid=$(cat "$work/pid-players")
: > "$work/rss"
( for _ in $(seq 0 5 "$duration"); do awk '/VmRSS/ {print $2}' "/proc/$pid/status" >> "$work/rss"; sleep 5; done ) &
sampler=$!
j=$(measure "$url" "$work/wrk-jsonsql.txt")
wait $sampler || true
rss=$(awk '{printf "%s%d", (NR > 1 ? " " : ""), $1 / 1024} END {print ""}' "$work/rss")

d="not run (no datasette)"
if command -v datasette >/dev/null && command -v wrk >/dev/null; then
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    datasette serve "$db" --port "$port" --setting sql_time_limit_ms 10000 > "$work/datasette.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/-/versions.json" >/dev/null && break; sleep 0.5; done
    # The SQL jsonsql ran, its two parameters (the country and the limit) written in.
    dsql=$(echo "$sql" | python3 -c 'import sys; s = sys.stdin.read().strip(); s = s.replace("?", "'"'"'DE'"'"'", 1).replace("?", "50", 1); print(s)')
    durl="http://127.0.0.1:$port/$(basename "$db" .sqlite).json?sql=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$dsql")&_shape=array"
    curl -sf "$durl" > "$work/datasette-page.json"
    echo "== datasette: $durl ($duration s)" >&2
    d=$(measure "$durl" "$work/wrk-datasette.txt")
fi

load="not run (no Chromium)"
if [ -x /usr/bin/chromium ]; then
    ebase=$(serve events "$ev")
    steps=$(python3 -c 'import json, sys; print(json.dumps([s for _ in range(5) for s in ({"go": sys.argv[1]}, {"loadtime": True})]))' "$ebase/$(basename "$ev" .ndjson)?limit=50")
    load=$(python3 "$root/Tests/browser/cdp.py" /usr/bin/chromium "$steps" | python3 -c 'import json, statistics, sys; v = [x for x in json.load(sys.stdin) if x is not None]; print(f"{statistics.median(v):.0f} ms (median of {len(v)}: {v})")')
fi

IFS='|' read -r jr jp jn js <<< "$j"
{
    echo "# jsonsql serve beside Datasette ($(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
    echo
    echo "A filtered page of 50 rows of $players players (\`$filter\`, an indexed path), wrk -t 2 -c 2 -d ${duration}s --latency."
    echo "Datasette runs the SQL jsonsql runs: \`$dsql\`"
    echo
    echo "| server | requests/s | p99 | non-2xx | socket errors |"
    echo "|---|---|---|---|---|"
    echo "| jsonsql serve | $jr | $jp | $jn | $js |"
    if [[ "$d" == *"|"* ]]; then
        IFS='|' read -r dr dp dn ds <<< "$d"
        echo "| Datasette $(datasette --version | awk '{print $NF}') | $dr | $dp | $dn | $ds |"
        echo
        echo "jsonsql serve: $(python3 -c "print(f'{$jr / $dr:.1f}')")x Datasette's requests per second."
        echo "Same rows from both (ids of the page): $(python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); print("yes, %d" % len(a) if [r["id"] for r in a] == [r["id"] for r in b] else "NO")' "$work/jsonsql-page.json" "$work/datasette-page.json")."
    else
        echo "| Datasette | $d | | | |"
    fi
    echo
    echo "jsonsql serve's resident memory every 5 s over its run (MiB): $rss"
    echo
    echo "A page of 50 rows of $events events (memory mode), headless Chromium, time to the load event: $load"
} | tee "$out/serve.md"
