#!/usr/bin/env bash
# jsonsql end to end on a real Citus cluster (a coordinator and two workers, Tests/citus/cluster.sh):
# every command through the coordinator's URL, counts compared with the input file's counted
# independently (python3), plans showing index scans on the shards, and no raw server line
# (WARNING:, NOTICE:, DETAIL:, ...) in any output. Skips, with exit 0 and a message, where Citus
# is not installed. make test-citus runs it on make test's debug build.
#
#   Tests/citus/run.sh [JSONSQL]     JSONSQL: the binary (default .build/debug/jsonsql)
#   PLAYERS=N                        the players inserted (default 50000)
#   GEN_PLAYERS=FILE                 their generator (default ../shared/bench/gen_players.py
#                                    beside the repository, as make bench)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
jsonsql=${1:-${JSONSQL_BIN:-$root/.build/debug/jsonsql}}
players=${PLAYERS:-50000}
generate=${GEN_PLAYERS:-$(dirname "$root")/shared/bench/gen_players.py}
cluster=$root/Tests/citus/cluster.sh

if ! why=$("$cluster" installed 2>&1); then
    echo "test-citus: skipped: $why"
    exit 0
fi
[ -x "$jsonsql" ] || { echo "test-citus: no jsonsql at $jsonsql (make build, or give its path)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "test-citus: needs python3 to count the input" >&2; exit 2; }
[ -f "$generate" ] || { echo "test-citus: no player generator at $generate (GEN_PLAYERS=FILE)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/jsonsql-citus-run.XXXXXX")
dir=""
cleanup() {
    [ -n "$dir" ] && "$cluster" stop "$dir"
    rm -rf "$work"
}
trap cleanup EXIT
dir=$("$cluster" start)
url="postgres://postgres@$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$dir"):9700/jsonsql"
version=$("$jsonsql" query "$url" --sql "SELECT split_part(citus_version(), ' ', 2) AS v" --format csv | tail -n 1 | tr -d '\r')
echo "test-citus: Citus $version, coordinator and 2 workers in $dir"

log=$work/all.log
checks=0
fail() {
    echo "test-citus: FAILED: $*" >&2
    exit 1
}

# Runs jsonsql; its standard output is in $work/out, its standard error in $work/err, both
# appended to the log. Fails when it fails, or when either holds a raw server line.
run() {
    echo "\$ jsonsql $*" >>"$log"
    local status=0
    "$jsonsql" "$@" >"$work/out" 2>"$work/err" || status=$?
    cat "$work/out" "$work/err" >>"$log"
    if [ "$status" != 0 ]; then
        cat "$work/err" >&2
        fail "jsonsql $* exited $status"
    fi
    if grep -En '(^|[^[:alnum:]_])(WARNING|NOTICE|DETAIL|HINT|CONTEXT|ERROR|INFO|LOG): ' "$work/out" "$work/err" >&2; then
        fail "a raw server line in the output of jsonsql $*"
    fi
}

# Like run, for a command that must fail: its message must hold $1.
refused() {
    local wanted=$1
    shift
    echo "\$ jsonsql $*" >>"$log"
    local status=0
    "$jsonsql" "$@" >"$work/out" 2>"$work/err" || status=$?
    cat "$work/out" "$work/err" >>"$log"
    [ "$status" = 1 ] || fail "jsonsql $* exited $status, not 1"
    grep -qF -- "$wanted" "$work/err" || fail "jsonsql $* did not say '$wanted': $(cat "$work/err")"
    checks=$((checks + 1))
}

same() {
    [ "$2" = "$3" ] || fail "$1: jsonsql gave '$2', the input holds '$3'"
    checks=$((checks + 1))
}

contains() {
    grep -qF -- "$2" "$work/$1" || fail "'$2' is not in the $1 of the last command: $(cat "$work/$1")"
    checks=$((checks + 1))
}

count() {
    run query "$url" "$1" --where "$2" --select 'count()' --format csv
    tail -n 1 "$work/out" | tr -d '\r'
}

python3 "$generate" "$players" >"$work/players.ndjson"

# The input's own counts, read by python3 from the file.
python3 - "$work/players.ndjson" >"$work/expected" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
def count(test):
    return sum(1 for r in rows if test(r))
print("all", len(rows))
print("de", count(lambda r: r["address"]["country"] == "DE"))
print("defr_rich", count(lambda r: r["address"]["country"] in ("DE", "FR") and r["score"] > 50000))
print("pro", count(lambda r: "pro" in r["tags"]))
print("active", count(lambda r: r["active"] is True))
print("nobio", count(lambda r: r.get("bio") is None))
print("rated", count(lambda r: r["rating"] >= 2.5))
countries = {}
for r in rows:
    countries[r["address"]["country"]] = countries.get(r["address"]["country"], 0) + 1
top = max(sorted(countries), key=lambda c: countries[c])
print("top", top, countries[top])
EOF
expected() { awk -v k="$1" '$1 == k { print $2 }' "$work/expected"; }

# create-table: distributed by the key, and a reference table.
run create-table "$url" player id:text:pk name:text score:integer rating:real active:boolean \
    address:json tags:json created:datetime bio:text --distribute-by id
run create-table "$url" country code:text:pk name:text --reference
refused "does not hold score" create-table "$url" other id:text:pk score:integer --distribute-by score
refused "has no such column" create-table "$url" other id:text:pk --distribute-by nope

# insert (COPY through the coordinator), timed.
start=$(date +%s.%N)
run insert "$url" player "$work/players.ndjson"
insert_seconds=$(python3 -c "import sys; print(round($(date +%s.%N) - $start, 2))")
contains err "inserted $(expected all) rows into player"
printf '%s\n' '{"code":"DE","name":"Germany"}' '{"code":"FR","name":"France"}' | run insert "$url" country
run tables "$url" --counts --format jsonl
contains out '{"name":"player","columns":9,"type":"table","rows":'"$(expected all)"',"distribution":"by id, 32 shards"}'
contains out '{"name":"country","columns":2,"type":"table","rows":2,"distribution":"reference, on every node"}'
run schema "$url" player --format jsonl
contains out '"column":"id","type":"text","declared":"text","notnull":true,"pk":1'
contains out '"distribution":"by this column, 32 shards"'
run schema "$url" country --format csv
contains out 'reference, on every node'
run describe "$url" player --format jsonl
contains err "note: player is spread over the cluster's nodes (Citus): by id, 32 shards"
contains out '{"path":"address.country","count":'"$(expected all)"

# query --where: counts against the input's.
same "address.country = DE" "$(count player 'address.country = DE')" "$(expected de)"
same "country in [DE,FR] and score > 50000" "$(count player 'address.country in [DE,FR] and score > 50000')" "$(expected defr_rich)"
same "tags contains pro" "$(count player 'tags contains pro')" "$(expected pro)"
same "active = true" "$(count player 'active = true')" "$(expected active)"
same "bio is null" "$(count player 'bio is null')" "$(expected nobio)"
same "rating >= 2.5" "$(count player 'rating >= 2.5')" "$(expected rated)"
run query "$url" player --where 'id = p0000007' --select id --format csv
contains out p0000007

# index, then --explain: the shards' index under Citus's scan.
run index "$url" player address.country
run indexes "$url" player --format jsonl
contains out '"name":"player_on_address_country"'
start=$(date +%s.%N)
run query "$url" player --where 'address.country = DE' --format jsonl
filter_seconds=$(python3 -c "import sys; print(round($(date +%s.%N) - $start, 3))")
same "rows out for address.country = DE" "$(wc -l <"$work/out" | tr -d ' ')" "$(expected de)"
run query "$url" player --where 'address.country = DE' --explain
contains out 'Custom Scan (Citus Adaptive)'
grep -Eq 'Index Scan (using|on) player_on_address_country_[0-9]+' "$work/out" \
    || fail "no index scan on a shard of player_on_address_country: $(cat "$work/out")"
checks=$((checks + 1))
plan=$(grep -Eo '(Bitmap )?Index Scan (using|on) player_on_address_country_[0-9]+' "$work/out" | head -n 1)
run query "$url" player --where 'id = p0000007' --explain
contains out 'Task Count: 1'

# --group-by, fanned out and merged.
run query "$url" player --group-by address.country --select 'address.country,count()' \
    --order-by 'count():desc' --order-by address.country --limit 1 --format csv
read -r top_country top_count < <(awk '$1 == "top" { print $2, $3 }' "$work/expected")
same "largest country group" "$(tail -n 1 "$work/out" | tr -d '\r')" "$top_country,$top_count"

# insert --upsert, --replace, --ignore on the distributed table: in input order, as on SQLite.
printf '%s\n' '{"id":"p0000001","score":1}' '{"id":"new1","name":"New","score":5}' \
    '{"id":"p0000001","name":"Twice"}' >"$work/upsert.ndjson"
run insert "$url" player "$work/upsert.ndjson" --upsert
contains err "inserted 1 row into player, updated 2 rows"
run query "$url" player --where 'id in [p0000001,new1]' --select id,name,score --order-by id --format jsonl
same "after --upsert" "$(tr '\n' ' ' <"$work/out")" '{"id":"new1","name":"New","score":5} {"id":"p0000001","name":"Twice","score":1} '
# Keys all different: written set by set rather than record by record, to the same end.
python3 - "$work/players.ndjson" "$work/many.ndjson" >"$work/many.sum" <<'EOF2'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").readlines()[10:1010]
total = 0
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in lines:
        r = json.loads(line)
        r["score"] += 1
        total += r["score"]
        out.write(json.dumps(r, ensure_ascii=False) + "\n")
    out.write(json.dumps({"id": "new2", "name": "Many"}) + "\n")
print(total)
EOF2
run insert "$url" player "$work/many.ndjson" --upsert
contains err "inserted 1 row into player, updated 1000 rows"
run query "$url" player --where 'id >= p0000010 and id <= p0001009' --select 'sum(score)' --format csv
same "sum of the upserted scores" "$(tail -n 1 "$work/out" | tr -d '\r')" "$(cat "$work/many.sum")"
run insert "$url" player "$work/upsert.ndjson" --replace
contains err "inserted 0 rows into player, replaced 3 rows"
run query "$url" player --where 'id = p0000001' --select id,name,score --format jsonl
same "after --replace" "$(cat "$work/out")" '{"id":"p0000001","name":"Twice","score":null}'
printf '%s\n' '{"id":"ign1","name":"First"}' '{"id":"ign1","name":"Second"}' '{"id":"p0000002","name":"Kept?"}' >"$work/ignore.ndjson"
run insert "$url" player "$work/ignore.ndjson" --ignore
contains err "inserted 1 row into player, skipped 2 records"
run query "$url" player --where 'id in [ign1,p0000002]' --select id,name --order-by id --format csv
contains out 'ign1,First'
! grep -q 'Kept?' "$work/out" || fail "--ignore replaced p0000002"
all=$(($(expected all) + 3))
same "rows after the inserts" "$(count player 'id is not null')" "$all"

# update and delete across the shards.
run update "$url" player --where 'address.country = DE' --set 'score=-1'
contains err "updated $(expected de) rows in player"
same "updated rows" "$(count player 'score = -1')" "$(expected de)"
run delete "$url" player --where 'score = -1'
contains err "deleted $(expected de) rows from player"
all=$((all - $(expected de)))
same "rows after delete" "$(count player 'id is not null')" "$all"

# alter, rename-table, drop-index: propagated to the shards.
run alter "$url" player --add level:integer
run rename-table "$url" country nation
run drop-index "$url" player_on_address_country
run tables "$url" --format csv
contains out 'nation,2,table,"reference, on every node"'

# The shell, with SQL and commands.
printf '%s\n' 'tables' "query player --where 'address.country = FR' --select 'count()'" \
    "SELECT count(*) AS n FROM nation;" | run shell "$url"
contains out '"n":2'

# A server's notice in jsonsql's words: create_distributed_table of a table with rows says
# it copies them.
printf '%s\n' '{"id":1,"kind":"a"}' '{"id":2,"kind":"b"}' | run insert "$url" event
run query "$url" --sql "SELECT create_distributed_table('event', 'id')"
contains err 'note: the server says: '
run query "$url" --sql "DO \$\$ BEGIN RAISE WARNING 'careful' USING DETAIL = 'the detail'; END \$\$"
contains err 'note: the server warns: careful (the detail)'
run drop-table "$url" event

# copy to SQLite and back, distributed again.
run copy "$url" "$work/copy.sqlite" -q
contains err "copied player: $all rows"
run query "$work/copy.sqlite" player --where 'address.country = FR' --select 'count()' --format csv
fr_sqlite=$(tail -n 1 "$work/out" | tr -d '\r')
run drop-table "$url" player
refused "table nation has no such column" copy "$work/copy.sqlite" "$url" player nation --distribute-by id -q
run copy "$work/copy.sqlite" "$url" player --distribute-by id -q
contains err "copied player: $all rows"
run tables "$url" --counts --format csv
contains out "player,10,table,$all,\"by id, 32 shards\""
same "FR after the round trip" "$(count player 'address.country = FR')" "$fr_sqlite"

if grep -En '(^|[^[:alnum:]_])(WARNING|NOTICE|DETAIL|HINT|CONTEXT): ' "$log" >&2; then
    fail "a raw server line in the output"
fi
echo "test-citus: plan: Custom Scan (Citus Adaptive) over 32 tasks, each: $plan"
echo "test-citus: passed: $checks checks, $(grep -c '^\$ jsonsql' "$log") commands on Citus $version; $players players inserted in ${insert_seconds} s, address.country = DE ($(expected de) rows, as JSON) in ${filter_seconds} s"
