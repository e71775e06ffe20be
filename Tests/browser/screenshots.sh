#!/bin/sh
# The screenshots docs/serve.md shows: jsonsql serve on Examples/players.ndjson, each page in
# headless Chromium (Tests/browser/cdp.py). Usage: Tests/browser/screenshots.sh [JSONSQL] [OUT]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jsonsql=${1:-$root/.build/debug/jsonsql}
out=${2:-$root/docs/images}
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "no Chromium at $chromium (apt-get install chromium)" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
"$jsonsql" insert "$work/players.sqlite" player "$root/Examples/players.ndjson" --pk id >/dev/null
"$jsonsql" index "$work/players.sqlite" player address.country >/dev/null
"$jsonsql" serve "$work/players.sqlite" --port 0 > "$work/banner" &
server=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q "Ctrl-C stops" "$work/banner" 2>/dev/null && break; sleep 0.5; done
base=$(sed -n 's|.* at \(http://[^/]*\)/.*|\1|p' "$work/banner")
mkdir -p "$out"
python3 "$here/cdp.py" "$chromium" "[
  {\"go\": \"$base/\"}, {\"shot\": \"$out/serve-tables.png\"},
  {\"go\": \"$base/player?where=score%20%3E%2050000&facet=address.country&limit=3\"}, {\"shot\": \"$out/serve-rows.png\"},
  {\"go\": \"$base/player?where=score%20%3E\"}, {\"shot\": \"$out/serve-error.png\"},
  {\"go\": \"$base/player/describe\"}, {\"shot\": \"$out/serve-describe.png\"},
  {\"go\": \"$base/player/group?by=address.country\"}, {\"shot\": \"$out/serve-group.png\"}
]" >/dev/null
echo "screenshots in $out"
