#!/usr/bin/env bash
# A throwaway Citus cluster: a coordinator and two workers, each a fresh PostgreSQL cluster
# reachable only through a unix socket in one new temporary directory (ports 9700, 9701, 9702
# there), with shared_preload_libraries=citus, the database `jsonsql` and the citus extension in
# it on every node, and the workers added to the coordinator.
#
#   Tests/citus/cluster.sh installed     exits 0 when Citus can be loaded, else says why (exit 3)
#   Tests/citus/cluster.sh start         prints the directory; the coordinator's URL is
#                                        postgres://postgres@DIR-percent-encoded:9700/jsonsql
#   Tests/citus/cluster.sh stop DIR      stops the three servers and removes DIR
#
# The servers refuse to run as root, so as root the clusters belong to `nobody`.
set -euo pipefail

PORTS=(9700 9701 9702)

bindir() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
    done
    return 1
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

installed() {
    local bin
    bin=$(bindir) || { echo "PostgreSQL is not installed (no initdb); make deps installs it" >&2; return 3; }
    if [ ! -f "$bin/../lib/citus.so" ] || [ ! -f "$(dirname "$bin")/../../../share/postgresql/$(basename "$(dirname "$bin")")/extension/citus.control" ]; then
        echo "Citus is not installed for PostgreSQL $(basename "$(dirname "$bin")") (no citus.so in $(cd "$bin/.." && pwd)/lib); it is not a Debian package: build it from https://github.com/citusdata/citus and make install" >&2
        return 3
    fi
}

sql() {
    local dir=$1 port=$2 database=$3
    shift 3
    as_owner "$(bindir)/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d "$database" "$@"
}

stop() {
    local dir=$1 bin node
    case "$dir" in /*/jsonsql-citus.*) ;; *) echo "not a jsonsql Citus cluster: $dir" >&2; exit 2 ;; esac
    bin=$(bindir) || bin=""
    for node in coordinator worker1 worker2; do
        if [ -n "$bin" ] && [ -f "$dir/$node/postmaster.pid" ]; then
            as_owner "$bin/pg_ctl" -D "$dir/$node" -m immediate -w stop >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$dir"
}

start() {
    local bin dir i node
    installed || exit 3
    bin=$(bindir)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/jsonsql-citus.XXXXXX")
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown nobody "$dir"
    i=0
    for node in coordinator worker1 worker2; do
        if ! as_owner "$bin/initdb" -D "$dir/$node" -A trust -U postgres --no-sync -E UTF8 \
            --locale=C.UTF-8 >"$dir/$node.initdb.log" 2>&1; then
            cat "$dir/$node.initdb.log" >&2
            stop "$dir"
            exit 1
        fi
        if ! as_owner "$bin/pg_ctl" -D "$dir/$node" -l "$dir/$node.log" -w \
            -o "-k $dir -p ${PORTS[$i]} -c listen_addresses='' -c shared_preload_libraries=citus -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c jit=off -c max_connections=200" \
            start >/dev/null 2>&1; then
            cat "$dir/$node.log" >&2
            stop "$dir"
            exit 1
        fi
        sql "$dir" "${PORTS[$i]}" postgres -c "CREATE DATABASE jsonsql" >/dev/null
        sql "$dir" "${PORTS[$i]}" jsonsql -c "SET client_min_messages = warning; CREATE EXTENSION citus" >/dev/null
        i=$((i + 1))
    done
    sql "$dir" "${PORTS[0]}" jsonsql -c "SELECT citus_set_coordinator_host('$dir', ${PORTS[0]})" >/dev/null
    sql "$dir" "${PORTS[0]}" jsonsql -c "SELECT citus_add_node('$dir', ${PORTS[1]})" >/dev/null
    sql "$dir" "${PORTS[0]}" jsonsql -c "SELECT citus_add_node('$dir', ${PORTS[2]})" >/dev/null
    echo "$dir"
}

case "${1:-}" in
installed) installed ;;
start) start ;;
stop) [ -n "${2:-}" ] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
*) echo "usage: $0 installed | start | stop DIR" >&2; exit 2 ;;
esac
