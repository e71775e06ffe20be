#!/usr/bin/env bash
# Builds the libFuzzer targets from the library's own sources and runs each for a while.
# usage: Fuzz/run.sh [SECONDS]   (default 60 per target)
# The committed corpus in Fuzz/corpus/TARGET replays first on every run; put any input a
# fuzzer finds there (and a test in Tests/) so it stays fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
out=.build-fuzz
mkdir -p "$out"
kit=Sources/JSONSQLKit

build() {
    local name=$1; shift
    swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name JSONSQLKit -o "$out/$name" "$@" 2>&1 \
        | grep -v "Cannot export local symbol" || true
    [ -x "$out/$name" ] || { echo "fuzz: building $name failed" >&2; exit 1; }
}

build where Fuzz/WhereFuzzer.swift $kit/Filter/Filter.swift $kit/Filter/FilterParser.swift \
    $kit/Paths/TextCursor.swift $kit/Paths/JSONPath.swift $kit/JSONSQLError.swift
build json Fuzz/JSONReaderFuzzer.swift $kit/Ingest/JSONScanner.swift $kit/Ingest/JSONText.swift \
    $kit/Ingest/RecordReader.swift $kit/Ingest/InputSource.swift $kit/JSONSQLError.swift \
    $kit/Output/JSONEncoding.swift $kit/Output/OutputBuffer.swift

for target in where json; do
    work="$out/corpus-$target"
    mkdir -p "$work"
    echo "fuzz: $target for ${seconds}s"
    "$out/$target" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$out/crash-$target-" "$work" "Fuzz/corpus/$target" 2>&1 \
        | grep -E "^(Done|stat::number_of_executed_units|==|SUMMARY|artifact_prefix)|Test unit written" || true
    if ls "$out"/crash-"$target"-* >/dev/null 2>&1; then
        echo "fuzz: $target found a crash: $(ls "$out"/crash-"$target"-*)" >&2
        exit 1
    fi
done
echo "fuzz: no crashes"
