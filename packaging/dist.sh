#!/usr/bin/env bash
# Makes the release archive and the Debian package from a release build (make dist):
#   OUT/jsonsql-VERSION-linux-ARCH.tar.gz   bin/jsonsql, share/man/man1, completion scripts under
#                                           share/ (as make install lays them out under PREFIX),
#                                           share/doc/jsonsql/README.md: unpacked into a PREFIX
#                                           with --strip-components=1, or anywhere
#   OUT/jsonsql_VERSION_DEBARCH.deb         the same under /usr, man pages gzipped, for apt install
# The package depends on the libraries the binary itself names (readelf's NEEDED: only glibc's
# when libstdc++ and SQLite were linked in); readline and libpq are opened only when the shell
# edits a line or a postgres:// URL is used, so libreadline8 is recommended and libpq5 suggested.
#   packaging/dist.sh JSONSQL_BINARY VERSION OUT
set -euo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 JSONSQL_BINARY VERSION OUT" >&2
    exit 64
fi
bin=$1
version=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
[ -x "$bin" ] || { echo "Error: $bin is not an executable jsonsql; build it first (make release)" >&2; exit 1; }
# jsonsql serve runs jsonsql-serve, built beside jsonsql.
serve=$(dirname "$bin")/jsonsql-serve
[ -x "$serve" ] || { echo "Error: no $serve beside $bin; build it first (make release)" >&2; exit 1; }
for tool in dpkg-deb dpkg readelf tar gzip; do
    command -v $tool >/dev/null || { echo "Error: make dist needs $tool (apt-get install dpkg-dev binutils)" >&2; exit 1; }
done
built=$("$bin" --version)
[ "$built" = "$version" ] || {
    echo "Error: $bin says version $built but VERSION says $version; rebuild it (make release)" >&2
    exit 1
}
if [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]; then
    echo "note: the working tree has uncommitted changes; the release is built from them as they are" >&2
fi

arch=$(uname -m)
debarch=$(dpkg --print-architecture)
name=jsonsql-$version-linux-$arch
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Everything is staged in a folder of its own, removed at the end; the results are written beside
# their names and moved into place.
work=$(mktemp -d "$out/.dist.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Files get the commit's time, so that two builds of one commit make the same archive.
epoch=$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)

# Libraries the binary loads at start: each must come from a package this system knows.
needed=$(readelf -d "$bin" "$serve" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
depends=""
for library in $needed; do
    # Every reader here reads to the end: one that stops early (head, awk's exit) would end the
    # writer with SIGPIPE, which pipefail makes this script's status.
    path=$(/sbin/ldconfig -p | awk -v lib="$library" '$1 == lib && /x86-64|x86_64|64bit/ && !found {print $NF; found = 1}')
    [ -n "$path" ] || { echo "Error: $bin needs $library, which ldconfig does not know" >&2; exit 1; }
    package=""
    for candidate in "$path" "$(readlink -f "$path")" "/usr$path" "${path#/usr}"; do
        package=$(dpkg -S "$candidate" 2>/dev/null | sed -n '1s/:.*//p') && [ -n "$package" ] && break
    done
    [ -n "$package" ] || { echo "Error: no Debian package holds $path ($library, needed by $bin)" >&2; exit 1; }
    if [ "$package" = libc6 ]; then
        glibc=$(objdump -T "$bin" "$serve" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n -u | tail -n 1)
        package="libc6 (>= $glibc)"
    fi
    case ", $depends, " in *", $package, "*) ;; *) depends="${depends:+$depends, }$package" ;; esac
done

# The archive: make install's layout under a folder named like the archive.
tree=$work/$name
make -s -C "$root" install-files DESTDIR="$tree" PREFIX= RELEASE_BIN="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
install -d "$tree/share/doc/jsonsql"
cp "$root/README.md" "$tree/share/doc/jsonsql/README.md"
find "$tree" -exec touch -h -d "@$epoch" {} +
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$work" -cf - "$name" | gzip -9n > "$work/$name.tar.gz"

# The package: the same files under /usr, where Debian's bash-completion, zsh and fish look.
deb=$work/deb
make -s -C "$root" install-files DESTDIR="$deb" PREFIX=/usr ZSH_COMPLETION_DIR=/usr/share/zsh/vendor-completions \
    RELEASE_BIN="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
gzip -9n "$deb"/usr/share/man/man1/*.1
install -d "$deb/usr/share/doc/jsonsql"
gzip -9n < "$root/README.md" > "$deb/usr/share/doc/jsonsql/README.md.gz"
cat > "$deb/usr/share/doc/jsonsql/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: jsonsql
Comment: The jsonsql sources state no license.
COPYRIGHT
install -d "$deb/DEBIAN"
cat > "$deb/DEBIAN/control" <<CONTROL
Package: jsonsql
Version: $version
Architecture: $debarch
Maintainer: ${MAINTAINER:-$(git -C "$root" log -1 --format='%an <%ae>' 2>/dev/null || echo 'jsonsql <jsonsql@localhost>')}
Installed-Size: $(du -sk --exclude=DEBIAN "$deb" | cut -f1)
Depends: $depends
Recommends: libreadline8
Suggests: libpq5
Section: database
Priority: optional
Description: keep JSON in SQLite: insert it, filter it by path, index it
 A command-line shell for keeping JSON in SQLite (and PostgreSQL). Pipe JSON in,
 filter it by path, index the paths you filter on, and get it back out as the
 same JSON: nested objects nested, booleans as true/false, integers as integers.
 .
 The shell edits lines with GNU readline (libreadline8) when it is installed;
 postgres:// databases need libpq5. Both are opened only when used.
CONTROL
find "$deb" -exec touch -h -d "@$epoch" {} +
package=jsonsql_${version}_$debarch.deb
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$deb" "$work/$package" >/dev/null

mv "$work/$name.tar.gz" "$out/$name.tar.gz"
mv "$work/$package" "$out/$package"
echo "$out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1))"
echo "$out/$package ($(du -h "$out/$package" | cut -f1); Depends: $depends)"
