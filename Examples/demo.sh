#!/usr/bin/env bash
# Builds a sample database from Examples/ and queries it. With DB, the database is left there
# and the script ends with commands to try on it (an existing DB is never replaced: the demo
# stops and says so); without, it is made in a temporary directory and removed.
# usage: demo.sh [DB]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
    db=$1
    if [ -e "$db" ] || [ -L "$db" ]; then
        echo "demo.sh: $db already exists, and the demo does not replace a file; remove it (rm $db) or name another: $0 OTHER.sqlite" >&2
        exit 1
    fi
    # Built beside its name and linked into place only when whole; ln refuses a name taken meanwhile.
    work=$(mktemp -d "$(dirname "$db")/.demo.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    draft="$work/demo.sqlite"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    draft="$work/demo.sqlite"
    db=$draft
fi

"$here/setup-schema.sh" "$draft"
echo
"$here/queries.sh" "$draft"
[ "$draft" = "$db" ] || ln "$draft" "$db"

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
