#!/bin/sh
# The README and the manual stay true to the repository:
# - every relative link in README.md, CHANGELOG.md, docs/*.md and
#   tests/README.md names a file or folder that exists;
# - every make target that README.md names (`make TARGET ...`) exists:
#   `make -n TARGET` with the line's variables plans without error;
# - README.md is a front door: at most 250 lines.
# Float build only (nothing here depends on the precision).
. "$(dirname "$0")/lib.sh"
float_only
cd "$ROOT" || exit 1

for f in README.md CHANGELOG.md docs/*.md tests/README.md; do
    check "$f exists" test -f "$f"
    [ -f "$f" ] || continue
    dir=$(dirname "$f")
    # the targets of markdown links: ](target) or ](target#anchor)
    grep -o '](\([^)]*\))' "$f" | sed 's/^](\(.*\))$/\1/; s/#.*//' | while IFS= read -r t; do
        case $t in "" | http://* | https://* | mailto:*) continue ;; esac
        [ -e "$dir/$t" ] || echo "$f: $t"
    done >>"$tmp/dead"
done
eq "dead relative links" "$(cat "$tmp/dead")" ""

# `make TARGET [VAR=VALUE ...]` at the start of a line or after `$ `, in
# README.md's code: TARGET is the first word that is not a variable or flag.
sed -n 's/[[:space:]]*#.*//; s/^\(.*[[:space:]]\)\{0,1\}make \(.*\)$/\2/p' README.md | while IFS= read -r rest; do
    target=""
    eval "set -- $rest" # the line's words, quotes as the shell reads them
    for w in "$@"; do
        case $w in
        *=* | -*) ;;
        *) [ -z "$target" ] && target=$w ;;
        esac
    done
    [ -n "$target" ] || continue
    if eval "make -n -C \"\$ROOT\" BUILD=\"\$BUILD\" $rest" >"$tmp/plan" 2>&1; then
        echo "ok $target"
    else
        echo "README.md: make $rest: $(grep -m1 -i 'error\|no rule' "$tmp/plan")"
    fi
done >"$tmp/targets"
check "README.md names some make targets" grep -q '^ok ' "$tmp/targets"
eq "README.md's make targets that do not plan" "$(grep -v '^ok ' "$tmp/targets")" ""

lines=$(wc -l <README.md)
check "README.md has at most 250 lines ($lines)" test "$lines" -le 250
finish
