#!/bin/sh
# Install the Debian packages PINNForge builds and tests with.
#
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh bench    also the PyTorch comparators and the parity
#                                    test's reader (python3-torch, python3-h5py)
#   scripts/install-deps.sh fuzz     also clang and its libFuzzer runtime
#                                    (libclang-rt-dev), for make fuzz
#
# Make runs this when pkg-config cannot find a library (or h5dump, gnuplot or
# python3 is missing), make refs when FreeFem++ is (the finite-element
# references), and make test when FreeFem++ or Slurm's daemons are (the
# tests that run them; slurm-wlm and munge: a one-node cluster in
# tests/t1200-study-slurm.sh), and make fuzz when clang cannot link
# libFuzzer. It looks up which of the packages below are not
# installed (dpkg-query); when none is missing it does nothing. Otherwise it
# first prints the packages and the exact apt-get command, then acts on
# INSTALL_DEPS (the Makefile passes its knob of that name):
#
#   ask (default)  as root with no terminal on stdin, or with CI=true (or 1):
#                  install. On a terminal: ask y/N (then run the command,
#                  through sudo when not root). Otherwise (it would need sudo
#                  and no one can answer): stop with the command to run.
#   yes            install, through sudo when not root.
#   no             never install; stop with the command to run.
#
# Exit status: 0 when nothing is missing or the packages were installed;
# 1 when they were not (declined, not allowed, no apt-get, apt-get failed).
set -eu

mode=${INSTALL_DEPS:-ask}
case $mode in
ask | yes | no) ;;
*) echo "install-deps: INSTALL_DEPS must be ask, yes or no, not '$mode'" >&2; exit 1 ;;
esac

pkgs="pkg-config libopenblas-openmp-dev libhdf5-dev hdf5-tools libmsgpack-dev
libcurl4-openssl-dev libjansson-dev libgsl-dev libssl-dev libcriterion-dev libfftw3-dev libsuitesparse-dev gnuplot-nox
python3 freefem++ libfreefem++ slurm-wlm munge"
[ "${1:-}" = bench ] && pkgs="$pkgs python3-torch python3-h5py"
[ "${1:-}" = fuzz ] && pkgs="$pkgs clang libclang-rt-dev"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

say() { echo "install-deps: $*" >&2; }

say "missing Debian packages:$missing"
if ! command -v apt-get >/dev/null 2>&1; then
    say "no apt-get here; install the equivalents with your package manager, then run make again"
    exit 1
fi

sudo=""
if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        say "not root and no sudo; as root, run:"
        say "  apt-get update && apt-get install -y --no-install-recommends$missing"
        exit 1
    fi
    sudo="sudo "
fi
cmd="${sudo}apt-get update && ${sudo}apt-get install -y --no-install-recommends$missing"

tty=no
[ -t 0 ] && tty=yes
ci=no
case ${CI:-} in true | TRUE | True | 1) ci=yes ;; esac

stop() {
    say "$1; to install them, run:"
    say "  $cmd"
    say "then run make again (or run make with INSTALL_DEPS=yes to let it install them)"
    exit 1
}

if [ "$mode" = no ]; then
    stop "not installing (INSTALL_DEPS=no)"
elif [ "$mode" = ask ]; then
    if [ -z "$sudo" ] && { [ $ci = yes ] || [ $tty = no ]; }; then
        if [ $ci = yes ]; then why="CI=$CI"; else why="no terminal to ask on"; fi
        say "root, $why: installing them with:"
        say "  $cmd"
    elif [ $tty = yes ]; then
        say "install them with:"
        say "  $cmd"
        printf 'install-deps: run it now? [y/N] ' >&2
        answer=""
        read -r answer || answer=""
        case $answer in
        y | Y | yes | Yes | YES) ;;
        *) stop "not installing" ;;
        esac
    else
        stop "installing needs sudo and there is no terminal to ask on"
    fi
else
    say "installing them (INSTALL_DEPS=yes) with:"
    say "  $cmd"
fi

# Without a terminal nobody can answer debconf's questions. sudo drops the
# environment, so the variable goes on its command line.
front=""
[ $tty = no ] && front="DEBIAN_FRONTEND=noninteractive"
if [ -n "$sudo" ]; then
    # shellcheck disable=SC2086
    sudo $front apt-get update >&2
    # shellcheck disable=SC2086
    sudo $front apt-get install -y --no-install-recommends $missing >&2
else
    [ -n "$front" ] && export DEBIAN_FRONTEND=noninteractive
    apt-get update >&2
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $missing >&2
fi
say "done"
