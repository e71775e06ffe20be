#!/usr/bin/env bash
# Creates the player table, loads Examples/players.ndjson and indexes the country path.
# usage: setup-schema.sh DB
set -euo pipefail
db=${1:?usage: setup-schema.sh DB}
here=$(cd "$(dirname "$0")" && pwd)

jsonsql create-table "$db" player id:text:pk name:text:notnull score:integer active:boolean \
    address:json tags:json created:datetime
jsonsql insert "$db" player < "$here/players.ndjson"
jsonsql index "$db" player address.country
