#!/bin/sh
# t0720-pf-pinnsagent-db.sh — `pf-pinnsagent-db --pde P [--k K] [--visits N]`.
#
#   tests/t0720-pf-pinnsagent-db.sh BUILD/bin float|double     (make test runs it)
#
# Exit codes (0 printed, 1 missing or wrong data, 2 usage / unknown PDE);
# a folder without the data and a CSV that is not the released one are
# refused with the reason; with PINNsAgent's files ($PF_PINNSAGENT_DIR, else
# data/ref/pinnsagent; `make data`): burgers_1d's three neighbours and ten
# scores, the UCT bonus with --visits, a PDE only we have (allen_cahn_1d).
. "$(dirname "$0")/lib.sh"
P=$BIN/pf-pinnsagent-db

# ------------------------------------------------------------ usage
expect_rc 0 "--help" "$P" --help
check "--help prints the usage" grep -q '^usage: pf-pinnsagent-db --pde P' "$tmp/out"
expect_rc 2 "no arguments" "$P"
expect_rc 2 "unknown PDE" "$P" --pde no_such_pde
check "unknown PDE: says so" grep -q "pde 'no_such_pde' is unknown" "$tmp/err"
expect_rc 2 "bad --k" "$P" --pde burgers_1d --k 0
expect_rc 2 "bad --visits" "$P" --pde burgers_1d --visits -1
expect_rc 2 "--k 2^32+1 (not 1)" "$P" --pde burgers_1d --k 4294967297
check "--k: says the range" grep -q "outside 1..100" "$tmp/err"
expect_rc 2 "unknown option" "$P" --pde burgers_1d --frobnicate

# ------------------------------------------------------------ data refused
expect_rc 1 "no data folder" env PF_PINNSAGENT_DIR="$tmp/none" "$P" --pde burgers_1d
check "no data: names the file and the variable" \
    grep -q "PINNsAgent file 'dataset_for_retrieval.csv' not found in '$tmp/none' (PF_PINNSAGENT_DIR)" "$tmp/err"
check "no data: says make data" grep -q "run \`make data\`" "$tmp/err"
mkdir -p "$tmp/other"
printf 'task,run_time,mse\nBurgers1D,1,1\n' >"$tmp/other/dataset_for_retrieval.csv"
expect_rc 1 "another CSV" env PF_PINNSAGENT_DIR="$tmp/other" "$P" --pde burgers_1d
check "another CSV: refused by its SHA-256" grep -q "is not PINNsAgent's released dataset_for_retrieval.csv" "$tmp/err"

# ------------------------------------------------------------ PINNsAgent's files
DIR=${PF_PINNSAGENT_DIR:-data/ref/pinnsagent}
if has_pa_data dataset_for_retrieval.csv && has_pa_data pde_labels.tsv; then
    expect_rc 0 "burgers_1d" "$P" --pde burgers_1d --quiet
    check "quiet: nothing on stderr" test ! -s "$tmp/err"
    check "labels line" grep -q '^burgers_1d: Burgers parabolic 1d nonlinear time-dependent dirichlet' "$tmp/out"
    check "3 neighbours" grep -q '^PGKR: 3 of the top 3 other PDEs' "$tmp/out"
    check "1. burgers_2d" grep -q '^  1\. burgers_2d (Burgers2D) cosine 0\.8000, best of 213 rows: mse 0\.165078 (line 504)' "$tmp/out"
    check "2. kuramoto_sivashinsky_1d" grep -q '^  2\. kuramoto_sivashinsky_1d (KuramotoSivashinskyEquation) cosine 0\.8000' "$tmp/out"
    check "3. heat_2d_multiscale" grep -q '^  3\. heat_2d_multiscale (Heat2D_Multiscale) cosine 0\.7000' "$tmp/out"
    check "a best config" grep -q '^     activation=sin net=laaf optimizer=lbfgs lr=1e-05 width=140 depth=7' "$tmp/out"
    check "scores over 16 others" grep -q '^memory tree: mean over 16 other PDEs$' "$tmp/out"
    check "activation score" grep -q '^  activation  *0\.9238$' "$tmp/out"
    eq "ten scores" "$(grep -c '^  [a-z_]*  *[0-9]\.[0-9]*$' "$tmp/out")" 10
    expect_rc 0 "--visits 1" "$P" --pde burgers_1d --visits 1 -q
    check "UCT: + 1.4 sqrt(ln 2 / 2)" grep -q '^  activation  *1\.7480$' "$tmp/out"
    expect_rc 0 "allen_cahn_1d (no rows)" "$P" --pde allen_cahn_1d --k 1 -q
    check "allen_cahn_1d: burgers_1d first" grep -q '^  1\. burgers_1d (Burgers1D) cosine 0\.9000' "$tmp/out"
    check "allen_cahn_1d: over all 17" grep -q '^memory tree: mean over 17 other PDEs$' "$tmp/out"
else
    data_missing "PINNsAgent's dataset_for_retrieval.csv and pde_labels.tsv not both in $DIR (PF_PINNSAGENT_DIR)"
fi
finish
