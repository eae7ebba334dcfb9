#!/bin/sh
# The README and the manual stay true to the repository:
# - every relative link in README.md, CHANGELOG.md, docs/*.md and
#   tests/README.md names a file or folder that exists;
# - every make target that README.md names (`make TARGET ...`) exists:
#   `make -n TARGET` with the line's variables plans without error;
# - README.md is a front door: at most 250 lines;
# - the recipes of docs/architecture.md ("Recipes for contributors") are
#   true: every file or folder they name in backquotes exists, and every
#   pf_/PF_ symbol they name is in the code.
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

# the recipes: from their heading to the next "## " heading
sed -n '/^## Recipes for contributors/,/^## [^#]/p' docs/architecture.md >"$tmp/recipes"
check "docs/architecture.md has its recipes" test -s "$tmp/recipes"
grep -o '`[^`]*`' "$tmp/recipes" | tr -d '`' | tr ' ,()' '\n\n\n\n' | sort -u >"$tmp/cited"
git ls-files --cached --others --exclude-standard >"$tmp/files"
# a path as the recipes write it: from the top, from src/ ("search/run.h"),
# or a file name alone ("graph.c"); a Criterion test as suite/name
found() {
    for d in "" src/; do [ -e "$d$1" ] && return 0; done
    case $1 in
    */*.*) return 1 ;;
    */*) grep -rqs "Test(${1%%/*}, ${1#*/}[,)]" tests ;;
    *) grep -q "/$1\$" "$tmp/files" ;;
    esac
}
n_paths=0 n_syms=0
while IFS= read -r w; do
    case $w in
    */* | *.c | *.h | *.cu | *.mk | *.md | *.def | *.pde | *.sh | *.kb)
        case $w in *'*'* | *NAME* | *NNNN* | *X* | *'<'* | *=* | .* | BUILD/* | http*) continue ;; esac # patterns, not files
        w=${w%/}
        w=${w#build/bin/} # a program that make builds: its source is stages/
        case $w in pf-*) [ -e "stages/$w.c" ] || echo "a program: $w" ;; *) found "$w" || echo "a file: $w" ;; esac
        n_paths=$((n_paths + 1)) ;;
    pf_* | PF_*)
        case $w in *'*'* | *X* | *NAME* | pf_x) continue ;; esac # patterns, not symbols
        w=${w%%[!A-Za-z0-9_]*}
        grep -rqw -e "$w" src stages pdes kernels tests Makefile pipeline.mk || echo "a symbol: $w"
        n_syms=$((n_syms + 1)) ;;
    esac
done <"$tmp/cited" >"$tmp/missing"
echo "$TEST_NAME: the recipes cite $n_paths paths and $n_syms symbols"
check "the recipes cite files and symbols ($n_paths, $n_syms)" test "$n_paths" -gt 10 -a "$n_syms" -gt 10
eq "what the recipes cite that does not exist" "$(cat "$tmp/missing")" ""

lines=$(wc -l <README.md)
check "README.md has at most 250 lines ($lines)" test "$lines" -le 250
finish
