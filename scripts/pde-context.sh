#!/bin/sh
# pde-context.sh — what a run's context.json records of a PDE written in a
# .pde file (pipeline.mk's context rule), so that Make reruns what depends
# on it when it changes: prints
#   , "pde_sha256": "<the file's SHA-256>"[, "data_sha256": "<...>"]
# the second over the data files its `observe ...: u from "F"` and
# `reference "F"` lines name (F as written when absolute, else beside the
# .pde: src/pdefile/table.h), in the order they appear. A named file that is
# not there is hashed as its name (a reference may be a PINNacle file in
# PF_DATA_DIR, checked by its SHA-256 in the data manifest), so creating it
# changes the context too; pf-pde check reports what is missing.
#
#   scripts/pde-context.sh FILE.pde
set -u
case ${1:-} in
-h | --help | "")
    echo "usage: scripts/pde-context.sh FILE.pde   (prints the context.json fields of a .pde file)" >&2
    exit 2
    ;;
esac
f=$1
[ -r "$f" ] || { echo "pde-context.sh: cannot read '$f'" >&2; exit 1; }
printf ', "pde_sha256": "%s"' "$(sha256sum <"$f" | cut -c1-64)"
dir=$(dirname "$f")
files=$(sed -n -e 's/^[[:space:]]*observe[^"#]*from[[:space:]]*"\([^"]*\)".*/\1/p' \
    -e 's/^[[:space:]]*reference[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
[ -n "$files" ] || exit 0
sum=$(printf '%s\n' "$files" | while IFS= read -r o; do
    case $o in /*) p=$o ;; *) p=$dir/$o ;; esac
    printf '%s\n' "$o"
    if [ -r "$p" ]; then sha256sum <"$p"; else echo missing; fi
done | sha256sum | cut -c1-64)
printf ', "data_sha256": "%s"' "$sum"
