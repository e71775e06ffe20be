#!/usr/bin/env bash
# Builds a sample database from Examples/ in a temporary directory and queries it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$here/setup-schema.sh" "$work/demo.sqlite"
echo
"$here/queries.sh" "$work/demo.sqlite"
