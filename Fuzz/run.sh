#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a share of the time given.
# usage: Fuzz/run.sh [SECONDS]   (default 180 in all: a quarter each for the --where parser and
#                                 the JSON reader, a quarter for whole command lines on SQLite
#                                 and a quarter for them on PostgreSQL)
# FUZZ_TARGETS picks some of where, json, cli and cli-postgres (default all), sharing SECONDS.
# cli-postgres runs the command-line target against a throwaway PostgreSQL server
# (Tests/postgres-server.sh: a fresh cluster on a unix socket in a temporary directory, removed
# when this script ends); make deps installs the server.
# The committed corpus in Fuzz/corpus/TARGET replays first on every run; put any input a
# fuzzer finds there (and a test in Tests/) so it stays fixed.
# FUZZ_ARGS adds libFuzzer options to every target, e.g. FUZZ_ARGS=-fork=2.
# The command-line target reads JSONSQL_FUZZ_SKIP, JSONSQL_FUZZ_VERBOSE and JSONSQL_FUZZ_TIMEOUT
# (see Fuzz/CommandLineFuzzer.c).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-180}
targets=${FUZZ_TARGETS:-where json cli cli-postgres}
share=$(( seconds / $(echo $targets | wc -w) ))
out=.build-fuzz
mkdir -p "$out"
kit=Sources/JSONSQLKit
# grep exits 1 when it filters out every line, which is no failure; 2 is.
quiet() { grep -v -e "Cannot export local symbol" -e "^\[[0-9]*/[0-9]*\] Compiling" || [ $? -eq 1 ]; }

build() {
    local name=$1; shift
    swiftc -sanitize=fuzzer,address -package-name jsonsql -parse-as-library -O -module-name JSONSQLKit -o "$out/$name" "$@" 2>&1 | quiet
    [ -x "$out/$name" ] || { echo "fuzz: building $name failed" >&2; exit 1; }
}

wants() { [[ " $targets " == *" $1 "* ]]; }

# JSONScanner.swift imports the scan kernel (C): built here with the same instrumentation, and
# found through a module map of its own.
scan=()
if wants where || wants json; then
    printf 'module CJSONScan {\n    header "%s"\n    export *\n}\n' \
        "$PWD/Sources/CJSONScan/include/CJSONScan.h" >"$out/CJSONScan.modulemap"
    ${CLANG:-clang} -fsanitize=fuzzer-no-link,address -g -O1 -ISources/CJSONScan/include \
        -c Sources/CJSONScan/scan.c -o "$out/scan.o"
    scan=(-Xcc "-fmodule-map-file=$out/CJSONScan.modulemap" "$out/scan.o")
fi

wants where && build where Fuzz/WhereFuzzer.swift $kit/Filter/Filter.swift $kit/Filter/FilterParser.swift \
    $kit/Paths/TextCursor.swift $kit/Paths/JSONPath.swift $kit/Paths/TextPath.swift $kit/Paths/QuoteTracker.swift $kit/JSONSQLError.swift $kit/Output/DisplayWidth.swift $kit/Values/ExactNumber.swift \
    $kit/Output/JSONEncoding.swift $kit/Output/JSONValidator.swift $kit/Output/OutputBuffer.swift $kit/Output/TerminalDisplay.swift \
    $kit/Output/UTF8Text.swift $kit/Ingest/JSONScanner.swift $kit/Ingest/JSONText.swift \
    $kit/SQL/NearestNames.swift $kit/SQL/SQLName.swift "${scan[@]}"
wants json && build json Fuzz/JSONReaderFuzzer.swift $kit/Ingest/JSONScanner.swift $kit/Ingest/JSONText.swift \
    $kit/Ingest/RecordReader.swift $kit/Ingest/KeyLayout.swift $kit/Memory/SameBytes.swift \
    $kit/Ingest/InputSource.swift Fuzz/InterruptionStub.swift $kit/JSONSQLError.swift \
    $kit/Output/DisplayWidth.swift \
    $kit/Output/JSONEncoding.swift $kit/Output/JSONValidator.swift $kit/Output/OutputBuffer.swift $kit/Output/TerminalDisplay.swift \
    $kit/Output/UTF8Text.swift $kit/Ingest/CompressedData.swift $kit/Ingest/WideUnicodeText.swift \
    $kit/SQL/NearestNames.swift $kit/SQL/SQLName.swift "${scan[@]}"

# The command-line target runs a jsonsql built with ASan and edge counters, which
# Fuzz/ChildCoverage.c hands back to the harness (a cold build takes a few minutes).
# FUZZ_CLI_BIN=.build/debug/jsonsql runs an existing binary instead: no build, no ASan,
# no guidance from jsonsql's own coverage.
clang=${CLANG:-clang}
if ! wants cli && ! wants cli-postgres; then
    :
elif [ -n "${FUZZ_CLI_BIN:-}" ]; then
    export JSONSQL_FUZZ_BIN=$FUZZ_CLI_BIN
else
    $clang -O1 -c Fuzz/ChildCoverage.c -o "$out/ChildCoverage.o.new"
    if ! cmp -s "$out/ChildCoverage.o.new" "$out/ChildCoverage.o"; then
        mv "$out/ChildCoverage.o.new" "$out/ChildCoverage.o"
        rm -f "$out/jsonsql-asan/debug/jsonsql"  # swift build does not see the object change
    fi
    echo "fuzz: building jsonsql with ASan into $out/jsonsql-asan"
    if ! swift build --product jsonsql --scratch-path "$out/jsonsql-asan" --sanitize=address \
        -Xswiftc -sanitize-coverage=edge,inline-8bit-counters -Xlinker "$PWD/$out/ChildCoverage.o" \
        >"$out/jsonsql-asan.log" 2>&1
    then
        quiet <"$out/jsonsql-asan.log" | tail -20 >&2
        echo "fuzz: building jsonsql with ASan failed (log: $out/jsonsql-asan.log)" >&2
        exit 1
    fi
    export JSONSQL_FUZZ_BIN=$out/jsonsql-asan/debug/jsonsql
fi
if wants cli || wants cli-postgres; then
    rm -f "$out/cli"
    $clang -fsanitize=fuzzer,address -g -O1 -I/usr/include/postgresql -o "$out/cli" Fuzz/CommandLineFuzzer.c -lsqlite3 -lpq 2>&1 | quiet
    [ -x "$out/cli" ] || { echo "fuzz: building cli failed" >&2; exit 1; }
    ln -sfn cli "$out/cli-postgres"
fi

status=0
fuzz() {
    local target=$1 time=$2; shift 2
    local work="$out/corpus-$target"
    mkdir -p "$work"
    echo "fuzz: $target for ${time}s"
    # shellcheck disable=SC2086
    set +e
    "$out/$target" -max_total_time="$time" -print_final_stats=1 -artifact_prefix="$out/crash-$target-" \
        "$@" ${FUZZ_ARGS:-} "$work" "Fuzz/corpus/$target" 2>&1 | tee "$out/fuzz-$target.log" \
        | grep -E "^(Done|stat::number_of_executed_units|==|SUMMARY|artifact_prefix|  [a-z]|command-line fuzzer)|Test unit written"
    local fuzzer=${PIPESTATUS[0]}
    set -e
    if [ "$fuzzer" != 0 ]; then
        echo "fuzz: $target exited with status $fuzzer" >&2
        status=1
    fi
    if ls "$out"/crash-"$target"-* >/dev/null 2>&1; then
        echo "fuzz: $target found a crash: $(ls "$out"/crash-"$target"-*)" >&2
        echo "fuzz: run it again with: $out/$target FILE" >&2
        status=1
    fi
}
for target in $targets; do
    case $target in
    where | json) fuzz "$target" $(( share > 3 ? share : 3 )) -max_len=4096 ;;
    cli) fuzz cli $(( share > 5 ? share : 5 )) -max_len=8192 -len_control=0 -timeout=60 ;;
    cli-postgres)
        if ! server=$(Tests/postgres-server.sh start $$); then
            echo "fuzz: the throwaway PostgreSQL server did not start (make deps installs it)" >&2
            status=1
            continue
        fi
        trap 'Tests/postgres-server.sh stop "$server"' EXIT
        JSONSQL_FUZZ_POSTGRES=$server fuzz cli-postgres $(( share > 5 ? share : 5 )) -max_len=8192 -len_control=0 -timeout=60
        ;;
    *) echo "fuzz: no target $target (FUZZ_TARGETS: where json cli cli-postgres)" >&2; exit 2 ;;
    esac
done
[ "$status" = 0 ] && echo "fuzz: no crashes"
exit "$status"
