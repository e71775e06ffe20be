#!/usr/bin/env bash
# Builds a sample database from Examples/ and queries it. With DB, the database is left there
# and the script ends with commands to try on it; an existing DB is never replaced: a demo
# database made before is left as it is and the commands are shown again, any other file stops
# the demo. Without DB, it is made in a temporary directory and removed.
# usage: demo.sh [DB]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# The commands to try on the demo database $1, and where the jsonsql that ran them is.
try_next() {
    local bin
    bin=$(dirname "$(command -v jsonsql)")
    cat <<TRY
Try next:
  jsonsql query $1 --where 'tags contains pro and score > 50000'
  jsonsql query $1 --where 'address.country = DE' --explain
  jsonsql shell $1
(--explain shows SQLite using the index on address.country. The jsonsql used here is
$bin/jsonsql; to have it on your PATH: make install, or export PATH="$bin:\$PATH".)
TRY
}

if [ $# -ge 1 ]; then
    db=$1
    if [ -e "$db" ] || [ -L "$db" ]; then
        # A database an earlier demo made (its player table answers) is kept, and shown again.
        if [ -f "$db" ] && jsonsql query "$db" player --count >/dev/null 2>&1; then
            echo "The demo database $db is there already, from an earlier demo; it is left as it is"
            echo "(to make it again: rm $db; make demo)."
            try_next "$db"
            exit 0
        fi
        echo "demo.sh: $db already exists and is not a demo database, and the demo does not replace a file; remove it (rm $db) or name another: $0 OTHER.sqlite" >&2
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
    echo
    echo "The demo database is $db."
    try_next "$db"
fi
