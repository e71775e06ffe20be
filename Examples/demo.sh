#!/usr/bin/env bash
# Builds a sample database from Examples/ and queries it. With DB, the database is left there
# (replaced if it exists) and the script ends with commands to try on it; without, it is made
# in a temporary directory and removed.
# usage: demo.sh [DB]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
    db=$1
    rm -f "$db"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    db="$work/demo.sqlite"
fi

"$here/setup-schema.sh" "$db"
echo
"$here/queries.sh" "$db"

if [ $# -ge 1 ]; then
    cat <<TRY

The demo database is $db. Try next:
  jsonsql query $db --where 'tags contains pro and score > 50000'
  jsonsql query $db --where 'address.country = DE' --explain
  jsonsql shell $db
(--explain shows SQLite using the index on address.country. To have jsonsql
on your PATH: make install, or export PATH="\$PWD/.build/debug:\$PATH".)
TRY
fi
