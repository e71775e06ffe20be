#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: a fresh cluster in a new temporary directory,
# reachable only through a unix socket in that directory, removed when the process it serves
# ends (or on `stop`).
#
#   Tests/postgres-server.sh start [PID]   prints the directory (the socket's host) on stdout;
#                                          the server is stopped and removed once PID ends
#   Tests/postgres-server.sh stop DIR      stops it and removes DIR now
#
# The server refuses to run as root, so as root the cluster belongs to `nobody`. Its time zone
# and collation are deliberately not UTC and not byte order (an ICU en-US collation), so tests
# prove jsonsql's output does not depend on the server's settings.
set -euo pipefail

bindir() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
    done
    command -v pg_ctl >/dev/null 2>&1 && { dirname "$(command -v pg_ctl)"; return 0; }
    return 1
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

stop() {
    local dir=$1 bin
    case "$dir" in /*/jsonsql-pg.*) ;; *) echo "not a jsonsql test server: $dir" >&2; exit 2 ;; esac
    [ -f "$dir/cluster/PG_VERSION" ] || { echo "no cluster in $dir" >&2; exit 2; }
    bin=$(bindir) || bin=""
    if [ -n "$bin" ] && [ -f "$dir/cluster/postmaster.pid" ]; then
        # A server that already ended (its watchdog stopped it) is no failure; anything else is said.
        if ! as_owner "$bin/pg_ctl" -D "$dir/cluster" -m immediate -w stop >/dev/null 2>&1 \
            && as_owner "$bin/pg_ctl" -D "$dir/cluster" status >/dev/null 2>&1; then
            echo "the test server in $dir did not stop" >&2
        fi
    fi
    rm -rf "$dir"
}

start() {
    local watched=${1:-} bin dir
    bin=$(bindir) || { echo "PostgreSQL is not installed (no initdb); make deps installs it" >&2; exit 3; }
    dir=$(mktemp -d "${TMPDIR:-/tmp}/jsonsql-pg.XXXXXX")
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown nobody "$dir"
    if ! as_owner "$bin/initdb" -D "$dir/cluster" -A trust -U postgres --no-sync -E UTF8 \
        --locale=C.UTF-8 --locale-provider=icu --icu-locale=en-US >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        rm -rf "$dir"
        exit 1
    fi
    # No JIT: tests that turn sequential scans off give every catalog query a huge estimated
    # cost, and compiling each took 0.2 s.
    if ! as_owner "$bin/pg_ctl" -D "$dir/cluster" -l "$dir/server.log" -w \
        -o "-k $dir -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c jit=off -c timezone=Pacific/Chatham" \
        start >/dev/null 2>&1; then
        if [ -f "$dir/server.log" ]; then cat "$dir/server.log" >&2; fi
        rm -rf "$dir"
        exit 1
    fi
    if [ -n "$watched" ]; then
        # Stops the server once the process it serves has ended, however that ended.
        (
            trap '' HUP INT
            while kill -0 "$watched" 2>/dev/null; do sleep 1; done
            stop "$dir"
        ) </dev/null >/dev/null 2>&1 &
        disown
    fi
    echo "$dir"
}

case "${1:-}" in
start) start "${2:-}" ;;
stop) [ -n "${2:-}" ] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
*) echo "usage: $0 start [PID] | stop DIR" >&2; exit 2 ;;
esac
