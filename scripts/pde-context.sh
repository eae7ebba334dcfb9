#!/bin/sh
# pde-context.sh — what a run's context.json records of a PDE written in a
# .pde file (pipeline.mk's context rule), so that Make reruns what depends
# on it when it changes: prints
#   , "pde_sha256": "<the file's SHA-256>"[, "observe_sha256": "<...>"]
# the second over the observation files its `observe ...: u from "F"` lines
# name (F as written when absolute, else beside the .pde: src/pdefile/observe.h),
# in the order they appear. A named file that is missing is hashed as its
# name, so creating it changes the context too; pf-pde check reports it.
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
obs=$(sed -n 's/^[[:space:]]*observe[^"]*from[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
[ -n "$obs" ] || exit 0
sum=$(printf '%s\n' "$obs" | while IFS= read -r o; do
    case $o in /*) p=$o ;; *) p=$dir/$o ;; esac
    printf '%s\n' "$o"
    if [ -r "$p" ]; then sha256sum <"$p"; else echo missing; fi
done | sha256sum | cut -c1-64)
printf ', "observe_sha256": "%s"' "$sum"
