#!/usr/bin/env bash
# The queries of the quick start, on a database made by setup-schema.sh.
# usage: queries.sh DB
set -euo pipefail
db=${1:?usage: queries.sh DB}

echo "# German players with at least 50000 points, best first"
jsonsql query "$db" --where 'address.country=DE' --where 'score>=50000' --order-by score:desc --limit 5 --format table

echo
echo "# Pros in Germany or France, as JSON"
jsonsql query "$db" player --where 'address.country in [DE,FR] and tags contains pro' \
    --select id,name,address.city,tags --format json

echo
echo "# The plan: the country filter uses the index"
jsonsql query "$db" --where 'address.country=DE' --explain
