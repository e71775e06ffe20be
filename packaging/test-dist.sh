#!/usr/bin/env bash
# Installs jsonsql's Debian package into a minimal Debian 12 root, as a new user would on a
# machine without Swift, and runs the quick start there (make test-dist):
#   1. dpkg -i: the package's one dependency (glibc) is there; without libreadline8 and libpq5 the
#      commands run, the interactive shell says it reads lines without editing, and a postgres://
#      URL gives a message naming libpq5; man jsonsql and man jsonsql-query show their pages;
#      bash completes jsonsql's commands and options.
#   2. the archive, unpacked anywhere: its binary and man pages work.
#   3. apt install ./jsonsql_VERSION_ARCH.deb (after dpkg -r): apt also brings libreadline8, and
#      the shell then edits lines.
# The root is debootstrapped once (bookworm, minbase with man-db and bash-completion) into
# .build/dist-test/bookworm and copied for each run. Needs root (debootstrap, chroot, mount).
#   packaging/test-dist.sh DEB ARCHIVE
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 DEB ARCHIVE" >&2
    exit 64
fi
deb=$(readlink -f "$1")
archive=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
[ -f "$deb" ] && [ -f "$archive" ] || { echo "Error: $1 or $2 is missing; make dist makes them" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "Error: make test-dist needs root (debootstrap and chroot); run it as root, or with sudo" >&2; exit 1; }
MIRROR=${MIRROR:-http://deb.debian.org/debian}
cache=$repo/.build/dist-test
base=$cache/bookworm
mkdir -p "$cache"

if [ ! -x "$base/usr/bin/apt-get" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null \
        || { echo "Error: make test-dist needs debootstrap (apt-get install debootstrap)" >&2; exit 1; }
    echo "test-dist: debootstrapping a minimal Debian 12 into $base (once; a few minutes)"
    rm -rf "$base.partial"
    if ! debootstrap --variant=minbase --include=man-db,bash-completion bookworm "$base.partial" "$MIRROR" \
        > "$cache/debootstrap.log" 2>&1; then
        tail -n 5 "$cache/debootstrap.log" >&2
        echo "Error: debootstrap failed (full log: $cache/debootstrap.log); is $MIRROR reachable?" >&2
        exit 1
    fi
    mv "$base.partial" "$base"
fi

root=$cache/root
mounted=""
cleanup() {
    for point in $mounted; do umount "$root/$point" || umount -l "$root/$point" || true; done
    # Never remove the copy while something is mounted in it.
    if ! grep -q " $root/" /proc/mounts; then rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT
if grep -q " $root/" /proc/mounts; then echo "Error: something is mounted under $root; unmount it first" >&2; exit 1; fi
rm -rf --one-file-system "$root"
cp -a "$base" "$root"
# /proc, and a terminal device of the root's own for the interactive shell (script(1)).
mount -t proc proc "$root/proc" && mounted="proc"
mkdir -p "$root/dev/pts"
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts" && mounted="dev/pts $mounted"
rm -f "$root/dev/ptmx"
ln -s pts/ptmx "$root/dev/ptmx"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$archive" "$root/tmp/"
cp "$repo/Examples/players.ndjson" "$root/tmp/"
version=$(sed -n 1p "$repo/VERSION")
debname=$(basename "$deb")
archivename=$(basename "$archive")

failures=0
# check DESCRIPTION SCRIPT: runs SCRIPT with bash in the root, as root in /tmp/work; prints
# its output, each command traced, when it fails. A pipe's reader reads to the end (grep, not
# grep -q): one that stops early ends the writer with SIGPIPE, which pipefail counts a failure.
check() {
    local description=$1 output status=0
    output=$(chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin TERM=dumb \
        LANG=C.UTF-8 /bin/bash -euxo pipefail -c "mkdir -p /tmp/work && cd /tmp/work && $2" 2>&1) || status=$?
    if [ $status = 0 ]; then
        echo "ok    $description"
    else
        echo "FAIL  $description (exit $status):"
        printf '%s\n' "$output" | tail -n 20 | sed 's/^/      /'
        failures=$((failures + 1))
    fi
}

check "no Swift, readline or libpq in the root" '
    ! command -v swift && ! ldconfig -p | grep "libreadline\.so\.8\|libpq\.so\.5" > /dev/null && ! dpkg -s libreadline8 libpq5'
check "dpkg -i $debname" "dpkg -i /tmp/$debname && dpkg -s jsonsql | grep '^Status: install ok installed' > /dev/null"
check "jsonsql --version is $version" "test \"\$(jsonsql --version)\" = $version"
check "ldd: the binary loads only glibc's libraries and libgcc_s (both in every Debian)" '
    ldd /usr/bin/jsonsql
    ! ldd /usr/bin/jsonsql | grep -v "linux-vdso\|ld-linux\|libc\.so\|libm\.so\|libdl\.so\|libpthread\.so\|librt\.so\|libgcc_s\.so" | grep . > /dev/null'
check "quick start: query a JSON file" '
    jsonsql query /tmp/players.ndjson --where "address.country = DE" --select id,name --limit 3 > out
    cat out; test "$(jsonsql query /tmp/players.ndjson --where "address.country = DE" --count)" -gt 0'
check "quick start: create-table, insert, index, query with the index, group" '
    jsonsql create-table db.sqlite player id:text:pk name:text:notnull score:integer active:boolean \
        address:json tags:json created:datetime
    jsonsql insert db.sqlite player /tmp/players.ndjson
    jsonsql index db.sqlite player address.country
    jsonsql query db.sqlite --where "address.country=DE" --where "score>=50000" --order-by score:desc --limit 3
    jsonsql query db.sqlite --where "address.country = DE" --explain | grep "USING INDEX player_on_address_country"
    jsonsql query db.sqlite player --where "address.country in [DE,FR] and tags contains pro" --format json > rows.json
    head -c 300 rows.json
    jsonsql query db.sqlite player --group-by address.country --select "address.country,count()" --order-by "count():desc"
    jsonsql describe db.sqlite player > paths; head -n 5 paths'
check "a script through the shell, without readline" '
    printf "tables\n" | jsonsql shell db.sqlite > tables.out; cat tables.out; grep -q "\"name\":\"player\"" tables.out'
check "the interactive shell without readline says so and reads lines" '
    printf "tables\n.quit\n" | script -qec "jsonsql shell db.sqlite" /dev/null > shell.out; cat shell.out
    grep -q "install libreadline8" shell.out && grep -q player shell.out'
check "a postgres:// URL without libpq: a message naming libpq5, exit 1" '
    status=0; jsonsql tables postgresql://localhost:1/none 2> err || status=$?; cat err
    test $status = 1 && grep -q "^Error: .*libpq5" err'
check "man jsonsql and man jsonsql-query" '
    MANWIDTH=80 man jsonsql | grep "jsonsql-query(1)" > /dev/null
    MANWIDTH=80 man jsonsql-query > page; head -n 8 page; grep -q "The --where language:" page
    for page in $(jsonsql --help | awk "/^SUBCOMMANDS:/ {on=1; next} on && /^  [a-z]/ {print \$1}"); do
        man -w jsonsql-$page > /dev/null
    done'
check "bash completes the commands and options" '
    source /usr/share/bash-completion/bash_completion
    _completion_loader jsonsql || true  # 124: "completion loaded, try again"
    complete -p jsonsql
    COMP_WORDS=(jsonsql qu); COMP_CWORD=1; COMP_LINE="jsonsql qu"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
    "$(complete -p jsonsql | sed "s/.*-F \([^ ]*\) .*/\1/")" jsonsql qu jsonsql
    printf "%s\n" "${COMPREPLY[@]}"; printf "%s\n" "${COMPREPLY[@]}" | grep -x query
    COMP_WORDS=(jsonsql query db.sqlite --whe); COMP_CWORD=3; COMP_LINE="jsonsql query db.sqlite --whe"
    COMP_POINT=${#COMP_LINE}; COMPREPLY=()
    "$(complete -p jsonsql | sed "s/.*-F \([^ ]*\) .*/\1/")" jsonsql --whe db.sqlite
    printf "%s\n" "${COMPREPLY[@]}" | grep -x -- --where'
check "the archive: bin/jsonsql and its man pages, unpacked anywhere" "
    mkdir -p /opt/a && tar -xzf /tmp/$archivename -C /opt/a
    dir=/opt/a/\$(basename /tmp/$archivename .tar.gz)
    test \"\$(\$dir/bin/jsonsql --version)\" = $version
    \$dir/bin/jsonsql query /tmp/players.ndjson --count
    MANWIDTH=80 man -l \$dir/share/man/man1/jsonsql-insert.1 | grep 'JSONSQL-INSERT(1)' > /dev/null
    test -s \$dir/share/bash-completion/completions/jsonsql && test -s \$dir/share/doc/jsonsql/README.md
    tar -xzf /tmp/$archivename -C /usr/local --strip-components=1
    test \"\$(/usr/local/bin/jsonsql --version)\" = $version
    # Debian's /usr/local/man is a link to /usr/local/share/man.
    test \"\$(readlink -f \"\$(man -w jsonsql-insert)\")\" = /usr/local/share/man/man1/jsonsql-insert.1
    rm /usr/local/bin/jsonsql"
check "dpkg -r, then apt install ./$debname: apt brings libreadline8" "
    dpkg -r jsonsql > /dev/null && ! command -v jsonsql
    apt-get update -qq
    cd /tmp && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./$debname > apt.log; tail -n 3 apt.log
    dpkg -s libreadline8 | grep '^Status: install ok installed' > /dev/null
    ! dpkg -s libpq5 > /dev/null 2>&1
    test \"\$(jsonsql --version)\" = $version"
check "the interactive shell with readline" '
    printf "tables\n.quit\n" | script -qec "jsonsql shell db.sqlite" /dev/null > shell.out; cat shell.out
    ! grep -q "install libreadline8" shell.out && grep -q player shell.out'

if [ $failures -gt 0 ]; then
    echo "make test-dist: $failures checks FAILED"
    exit 1
fi
echo "make test-dist: every check passed on Debian $(cat "$root/etc/debian_version") ($(du -h "$deb" | cut -f1) package)"
