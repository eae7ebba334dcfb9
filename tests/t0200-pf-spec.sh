#!/bin/sh
# t0200-pf-spec.sh — `pf-spec` end to end: example -> check (exit 0, hash
# line, stable hash), a rejected spec (exit 1, one reason per line), usage
# errors and an unknown PDE (exit 2).
#
#   tests/t0200-pf-spec.sh BUILD/bin float|double     (make test runs it)
. "$(dirname "$0")/lib.sh"
PF_SPEC=$BIN/pf-spec

expect_rc 0 "--help" "$PF_SPEC" --help
expect_rc 2 "no command" "$PF_SPEC"
expect_rc 2 "unknown command" "$PF_SPEC" frobnicate --pde poisson_5d
expect_rc 2 "unknown PDE" "$PF_SPEC" describe --pde no_such_pde
grep -q "no_such_pde" "$tmp/err" && ok || not_ok "unknown PDE message names it"
expect_rc 2 "check without --fidelity" "$PF_SPEC" check x.json --pde poisson_5d
expect_rc 2 "bad fidelity" "$PF_SPEC" example --pde poisson_5d --fidelity medium
expect_rc 0 "describe" "$PF_SPEC" describe --pde burgers_1d
grep -q "65,536" "$tmp/out" && ok || not_ok "describe states the point limit"

for pde in poisson_5d burgers_1d; do
    for fid in low high; do
        "$PF_SPEC" example --pde $pde --fidelity $fid >"$tmp/ex.json" || not_ok "example $pde $fid"
        expect_rc 0 "check example $pde $fid" "$PF_SPEC" check "$tmp/ex.json" --pde $pde --fidelity $fid
        grep -Eq '^hash: [0-9a-f]{64}$' "$tmp/out" && ok || not_ok "hash line $pde $fid"
    done
done
# the budget of the other fidelity is rejected with one sentence
"$PF_SPEC" example --pde poisson_5d >"$tmp/low.json"
expect_rc 1 "low spec at high fidelity" "$PF_SPEC" check "$tmp/low.json" --pde poisson_5d --fidelity high
[ "$(wc -l <"$tmp/out")" -eq 1 ] && ok || not_ok "one reason line"
grep -q "^optimization.stages\[\*\].steps sum to 1,000" "$tmp/out" && ok || not_ok "step-sum reason"
# hash of a minimal spec (defaults omitted, keys reordered) equals the example's
printf '%s' '{"training": {}, "optimization": {"stages": [{"steps": 1000, "optimizer": "adam"}]},
 "loss": {}, "constraints": {}, "sampling": {}, "architecture": {}, "representation": {}}' >"$tmp/min.json"
"$PF_SPEC" check "$tmp/min.json" --pde poisson_5d --fidelity low | grep '^hash:' >"$tmp/h1"
"$PF_SPEC" check "$tmp/low.json" --pde poisson_5d --fidelity low | grep '^hash:' >"$tmp/h2"
[ -s "$tmp/h1" ] && cmp -s "$tmp/h1" "$tmp/h2" && ok || not_ok "minimal spec hashes as the example"
printf '{"bad json' >"$tmp/bad.json"
expect_rc 1 "malformed JSON" "$PF_SPEC" check "$tmp/bad.json" --pde poisson_5d --fidelity low

finish
