#!/bin/sh
# Install the Debian packages PINNForge builds and tests with.
#
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh bench    also the PyTorch comparator (python3-torch)
#
# Make runs this when pkg-config cannot find a library. It only installs what
# is missing, says what it installs, and uses sudo when not run as root.
set -eu

pkgs="pkg-config libopenblas-openmp-dev libhdf5-dev hdf5-tools libmsgpack-dev
libcurl4-openssl-dev libjansson-dev libgsl-dev libssl-dev libcriterion-dev gnuplot-nox
python3"
[ "${1:-}" = bench ] && pkgs="$pkgs python3-torch"

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing packages:$missing" >&2
    echo "install-deps: no apt-get here; install the equivalents with your package manager" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
        echo "install-deps: need root or sudo to install:$missing" >&2; exit 1; }
    sudo=sudo
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >&2
echo "install-deps: done" >&2
