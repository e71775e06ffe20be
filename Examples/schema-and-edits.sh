#!/usr/bin/env bash
# A small league: teams, players that belong to a team, and matches between players. Foreign keys,
# a generated column, partial and case-insensitive indexes; then edits, and queries on the result.
# usage: schema-and-edits.sh [DB]   (a temporary database when none is given)
set -euo pipefail
if [ $# -gt 0 ]; then db=$1; else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    db=$work/league.sqlite
fi

echo "# Schema"
jsonsql create-table "$db" team id:text:pk name:text:notnull:unique:collate=nocase
jsonsql create-table "$db" player id:integer:pk name:text:notnull \
    team:text:notnull:references=team.id:on-delete=cascade \
    score:integer:default=0:check='score >= 0' active:boolean:default=true \
    profile:json country:text:generated=profile.address.country \
    --unique team,name
jsonsql create-table "$db" match player:integer:references=player.id:on-delete=cascade \
    played:date points:integer --pk player,played --without-rowid
jsonsql index "$db" player country
jsonsql index "$db" player name --nocase
jsonsql index "$db" player score --where 'active = true' --name active_by_score

echo
echo "# Data"
jsonsql insert "$db" team <<'JSON'
[{"id": "red", "name": "Red Lions"}, {"id": "blue", "name": "Blue Sharks"}]
JSON
jsonsql insert "$db" player <<'JSON'
{"id": 1, "name": "Ann", "team": "red", "score": 120, "profile": {"address": {"country": "DE", "city": "Berlin"}, "tags": ["pro"]}}
{"id": 2, "name": "Bob", "team": "red", "score": 80, "profile": {"address": {"country": "FR", "city": "Lyon"}}}
{"id": 3, "name": "Cleo", "team": "blue", "score": 95, "profile": {"address": {"country": "DE", "city": "Hamburg"}, "tags": []}}
{"id": 4, "name": "Dan", "team": "blue", "score": 40, "active": false}
JSON
jsonsql insert "$db" match <<'JSON'
{"player": 1, "played": "2024-05-01", "points": 3}
{"player": 3, "played": "2024-05-01", "points": 1}
{"player": 4, "played": "2024-05-02", "points": 0}
JSON
if jsonsql insert "$db" player <<<'{"id": 5, "name": "Eve", "team": "green"}' 2>/dev/null; then
    echo "unexpected: a player of a missing team was inserted"; exit 1
else
    echo "a player of a missing team is refused"
fi

echo
echo "# Edits"
jsonsql update "$db" player --where 'name = Bob' --set profile.address.city=Paris --set score=85
jsonsql update "$db" player --where 'country = DE' --patch 'profile={"league": "north"}'
jsonsql update "$db" player --where 'id = 3' --set 'profile.tags=["rookie"]' --json
jsonsql update "$db" player --where 'profile.address exists' --remove profile.address.city --dry-run
jsonsql alter "$db" player --add level:integer:default=1 --rename score=points
jsonsql delete "$db" team --where 'id = blue'

echo
echo "# Active players by points, with their country"
jsonsql query "$db" player --where 'active = true' --select name,team,points,country,profile.league \
    --order-by points:desc --format table

echo
echo "# Matches left after the blue team was deleted (cascade)"
jsonsql query "$db" match --format jsonl

echo
echo "# The plans: the partial index and the case-insensitive index"
jsonsql query "$db" player --where 'active = true' --where 'points > 50' --explain
jsonsql query "$db" player --where "name like 'a%'" --explain
