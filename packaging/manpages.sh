#!/usr/bin/env bash
# Writes the manual pages jsonsql.1 and jsonsql-COMMAND.1 (one per subcommand) into DIR from the
# commands' own --help, so the pages say what the help says: never written twice, never behind.
# The help's sections become the page's (OVERVIEW: NAME and DESCRIPTION, USAGE: SYNOPSIS,
# ARGUMENTS, OPTIONS, SUBCOMMANDS: COMMANDS), their text kept as the help lays it out.
# Run by make install and make dist; each page is written beside its name and moved into place.
#   packaging/manpages.sh JSONSQL_BINARY DIR
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 JSONSQL_BINARY DIR" >&2
    exit 64
fi
bin=$1
out=$2
[ -x "$bin" ] || { echo "Error: $bin is not an executable jsonsql; build it first (make release)" >&2; exit 1; }
mkdir -p "$out"
# The help as it is laid out for an 80-column terminal.
export COLUMNS=80 LC_ALL=C.UTF-8
unset NO_COLOR JSONSQL_PAGER

version=$("$bin" --version)
top=$("$bin" --help)
commands=$(printf '%s\n' "$top" | awk '/^SUBCOMMANDS:/ {on=1; next} on && /^  [a-z]/ {print $1}')
[ -n "$commands" ] || { echo "Error: no SUBCOMMANDS in $bin --help" >&2; exit 1; }

# page NAME HELP_TEXT SEE_ALSO: the roff source of one page on stdout: NAME, SYNOPSIS,
# DESCRIPTION, then the help's other sections in its order. The help is laid out for 80
# columns, so its text is kept unindented and unfilled: as wide as on the terminal.
page() {
    printf '%s\n' "$2" | awk -v name="$1" -v version="$version" -v see="$3" '
        function roff(line) {
            gsub(/\\/, "\\e", line); gsub(/-/, "\\-", line)
            if (line ~ /^[.\047]/) line = "\\&" line
            return line
        }
        function block(title, text) {
            if (text == "") return
            sub(/\n+$/, "\n", text)
            print ".SH " title; print ".nf"; print ".in 0"; printf "%s", text; print ".fi"
        }
        # OVERVIEW: its first paragraph is the one-line summary under NAME, the rest DESCRIPTION.
        /^OVERVIEW: / { sub(/^OVERVIEW: /, ""); summary = $0; current = "SUMMARY"; next }
        current == "SUMMARY" && /^$/ { current = "DESCRIPTION"; next }
        current == "SUMMARY" { summary = summary " " $0; next }
        /^[A-Z][A-Z ]*:( |$)/ {
            current = $0; sub(/:.*/, "", current); rest = $0; sub(/^[A-Z][A-Z ]*: ?/, "", rest)
            if (current == "USAGE") current = "SYNOPSIS"
            if (current == "SUBCOMMANDS") current = "COMMANDS"
            order[++sections] = current
            if (rest != "") text[current] = text[current] roff(rest) "\n"
            next
        }
        current != "" { text[current] = text[current] roff($0) "\n" }
        END {
            title = toupper(name); gsub(/-/, "\\-", title)
            printf ".TH \"%s\" \"1\" \"\" \"jsonsql %s\" \"jsonsql manual\"\n", title, version
            print ".nh"; print ".ad l"
            print ".SH NAME"; print roff(name) " \\- " roff(summary)
            block("SYNOPSIS", text["SYNOPSIS"])
            block("DESCRIPTION", text["DESCRIPTION"])
            for (i = 1; i <= sections; i++) if (order[i] != "SYNOPSIS") block(order[i], text[order[i]])
            if (see != "") { print ".SH SEE ALSO"; print see }
        }'
}

write() { # NAME HELP_TEXT SEE_ALSO
    page "$@" > "$out/.$1.1.tmp"
    mv "$out/.$1.1.tmp" "$out/$1.1"
}

see_all=""
for command in $commands; do see_all="$see_all${see_all:+,
}.BR jsonsql\\-$command (1)"; done
write jsonsql "$top" "$see_all"
for command in $commands; do
    write "jsonsql-$command" "$("$bin" "$command" --help)" ".BR jsonsql (1)"
done
