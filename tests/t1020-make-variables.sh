#!/bin/sh
# t1020-make-variables.sh — make checks PDE, METHOD, RUN(S), RUNS_ROOT, LLM_MAX_* (and a
# study's PDES, METHODS, RUNS) as it reads pipeline.mk, before any rule
# writes (issue 33):
#   - PDE=../../../../tmp/TRAV used to create /tmp/TRAV/pinnforge/run0/context.json
#     before the name was refused: now no such PDE, nothing written;
#   - RUNS_ROOT="/x/with space" used to write space/... into the checkout, a
#     quote in RUNS_ROOT was a shell syntax error: refused by name;
#   - RUN= (empty) used to exit 0 doing nothing: refused;
#   - a .pde that is a FIFO used to hang make (sed read it): refused.
# Each is refused with exit 2 and a message naming the variable. Parsing
# only: no stage runs (a second or so in all).
#
#   tests/t1020-make-variables.sh BUILD/bin float|double     (make test runs it)
. "$(dirname "$0")/lib.sh"
float_only
# make VARS...: the search goal in the project, nothing else
mk() {
    timeout 60 make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PROFILE=smoke "$@" search
}

# a PDE that climbs out of RUNS_ROOT: ROOT's depth of "..", then $tmp/TRAV
up=$(echo "$ROOT" | sed 's|^/||; s|[^/][^/]*|..|g')
expect_rc 2 "PDE=../../$tmp/TRAV" mk PDE="$up$tmp/TRAV" RUN=0 RUNS_ROOT="$tmp/runs"
check "traversal: no such PDE" grep -q "PDE=$up$tmp/TRAV: no such PDE" "$tmp/err"
check "traversal: nothing written outside RUNS_ROOT" test ! -e "$tmp/TRAV"
check "traversal: nothing written inside" test ! -e "$tmp/runs"

# a space in RUNS_ROOT: its second word used to become a folder of the checkout
word=pf_t1020_$$
expect_rc 2 "RUNS_ROOT with a space" mk PDE=poisson_5d RUN=0 RUNS_ROOT="$tmp/with $word"
check "space: names RUNS_ROOT" grep -q "RUNS_ROOT='$tmp/with $word': make passes it to the shell unquoted" "$tmp/err"
check "space: nothing written in the checkout" test ! -e "$ROOT/$word"
rm -rf "${ROOT:?}/$word" # what the old make left
check "space: nothing written" test ! -e "$tmp/with"

expect_rc 2 "RUNS_ROOT with a quote" mk PDE=poisson_5d RUN=0 RUNS_ROOT="$tmp/it's"
check "quote: names RUNS_ROOT" grep -q "RUNS_ROOT='$tmp/it's': make passes it" "$tmp/err"
check "quote: no shell syntax error" sh -c "! grep -q 'Syntax error\|unterminated' '$tmp/err'"
expect_rc 2 "RUNS_ROOT with a semicolon" mk PDE=poisson_5d RUN=0 "RUNS_ROOT=$tmp/a;touch $tmp/pwned"
check "semicolon: nothing run" test ! -e "$tmp/pwned"

expect_rc 2 "RUN= (empty)" mk PDE=poisson_5d RUN= RUNS_ROOT="$tmp/runs"
check "RUN=: says so" grep -q "RUN/RUNS is empty" "$tmp/err"
expect_rc 2 "RUNS with a leading zero" mk PDE=poisson_5d RUNS="0 01" RUNS_ROOT="$tmp/runs"
check "RUNS=01: says so" grep -q "'01' is not a run number" "$tmp/err"
expect_rc 2 "RUN=-1" mk PDE=poisson_5d RUN=-1 RUNS_ROOT="$tmp/runs"
expect_rc 2 "METHOD=unknown" mk PDE=poisson_5d RUN=0 METHOD=nothing RUNS_ROOT="$tmp/runs"
check "METHOD: lists the methods" grep -q "METHOD='nothing': not a method (known: pinnforge" "$tmp/err"
expect_rc 2 "PROFILE with a semicolon" mk PDE=poisson_5d RUN=0 "PROFILE=smoke;touch $tmp/pwned" RUNS_ROOT="$tmp/runs"
check "PROFILE: nothing run" test ! -e "$tmp/pwned"
expect_rc 2 "LLM_MAX_TOKENS=0" mk PDE=poisson_5d RUN=0 LLM_MAX_TOKENS=0 RUNS_ROOT="$tmp/runs"
check "LLM_MAX_TOKENS: says so" grep -q "LLM_MAX_TOKENS='0': a whole number of tokens per run, 1 or more" "$tmp/err"
expect_rc 2 "LLM_MAX_COST with a semicolon" mk PDE=poisson_5d RUN=0 "LLM_MAX_COST=1;touch $tmp/pwned" RUNS_ROOT="$tmp/runs"
check "LLM_MAX_COST: says so" grep -q "LLM_MAX_COST='1;touch $tmp/pwned': a cost per run" "$tmp/err"
check "LLM_MAX_COST: nothing run" test ! -e "$tmp/pwned"
check "nothing written by any of them" test ! -e "$tmp/runs"

mkfifo "$tmp/fifo.pde"
expect_rc 2 "PDE=a FIFO .pde" mk PDE="$tmp/fifo.pde" RUN=0 RUNS_ROOT="$tmp/runs"
check "FIFO .pde: not a regular file" grep -q "PDE=$tmp/fifo.pde: not a regular file" "$tmp/err"

# a study's variables, the same way
st() { timeout 60 make -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PROFILE=smoke RUNS_ROOT="$tmp/runs" "$@" study; }
expect_rc 2 "PDES with a traversal" st PDES="burgers_1d $up$tmp/TRAV" RUNS=0
check "PDES: names it" grep -q "PDES=$up$tmp/TRAV: no such PDE" "$tmp/err"
expect_rc 2 "METHODS unknown" st PDES=burgers_1d METHODS="vanilla nothing" RUNS=0
expect_rc 2 "RUNS empty in a study" st PDES=burgers_1d RUNS=
expect_rc 2 "PDES with a quote" st PDES="burgers_1d it's" RUNS=0
check "study: nothing written" test ! -e "$tmp/runs" -a ! -e "$tmp/TRAV"

# and what is fine still plans: the main job, a .pde file, a study
expect_rc 0 "make -n: the main job" make -n -s -C "$ROOT" --no-print-directory BUILD="$BUILD" PDE=darcy_flow_2d RUN=0 \
    PROFILE=quick RUNS_ROOT="$tmp/runs" search
expect_rc 0 "make -n: a .pde file" make -n -s -C "$ROOT" --no-print-directory BUILD="$BUILD" \
    PDE=examples/pdes/helmholtz_2d.pde RUNS="0 1" RUNS_ROOT="$tmp/runs" search
check "make -n takes no lock, makes no folder" test ! -e "$tmp/runs"

# make -n study prints the plan and changes nothing (issue 35, item 10): its
# recipe calls $(MAKE), so make -n runs it; the progress line (pf-study) used
# to run for real, and the flags file, forced every time, listed every
# object of build/ as rebuilt in each sub-make (1,094 lines for this plan,
# 528 of them compiles; 25 now)
touch "$tmp/stamp"
sleep 1
expect_rc 0 "make -n study" make -n -C "$ROOT" --no-print-directory BUILD="$BUILD" PDES=burgers_1d METHODS=vanilla \
    RUNS=0 PROFILE=smoke RUNS_ROOT="$tmp/runs" study
lines=$(wc -l <"$tmp/out")
check "make -n study: a plan of modest size ($lines lines)" test "$lines" -lt 60
check "make -n study: the plan trains the run" grep -q "pf-train --run $tmp/runs/burgers_1d/vanilla/run0 --generation 0 --slot 4" "$tmp/out"
check "make -n study: no compile listed" sh -c "! grep -q -- ' -c .*\\.c -o ' '$tmp/out'"
check "make -n study: pf-study printed, not run" sh -c "grep -q ': not run under make -n: .*pf-study' '$tmp/out' && ! grep -q '^total: ' '$tmp/out'"
check "make -n study: nothing written" test -z "$(find "$BUILD" "$ROOT/runs" "$ROOT/reports" "$tmp" -newer "$tmp/stamp" ! -path "$tmp/out" ! -path "$tmp/err" 2>/dev/null)"
finish
