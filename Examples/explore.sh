#!/usr/bin/env bash
# Find out what a file of JSON holds, then ask it a question: load it, describe every path,
# query one, and get the Swift types a GRDB app would read it with.
# usage: explore.sh DB [FILE]   (FILE defaults to Examples/players.ndjson)
set -euo pipefail
db=${1:?usage: explore.sh DB [FILE]}
here=$(cd "$(dirname "$0")" && pwd)
file=${2:-$here/players.ndjson}

# insert makes the table from the data when it does not exist.
jsonsql insert "$db" player < "$file"
jsonsql tables "$db" --counts --format table

echo
echo "# Every path: how often present, its types, distinct values, range, an example"
jsonsql describe "$db" player --format table

echo
echo "# Paths print as --where takes them: ask about one"
jsonsql query "$db" player --where 'address.country=DE' --select id,name,address.city --order-by id --format table

echo
echo "# A typo in a path still runs, and says what it probably meant"
jsonsql query "$db" player --where 'address.contry=DE' --format jsonl

echo
echo "# The types a GRDB app would declare for the table"
jsonsql describe "$db" player --swift
