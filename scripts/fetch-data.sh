#!/bin/sh
# Put the PINNacle reference files into the data folder and verify them.
#
#   scripts/fetch-data.sh [DIR]      (default: $PF_DATA_DIR, else data/ref)
#
# Every file listed in data/pinnacle.sha256 that is missing from DIR, or whose
# SHA-256 differs, is downloaded from PINNacle's repository at the pinned
# commit and checked; a file that fails its checksum is not kept. Without a
# network the script says which files are missing and where they come from.
# The files are PINNacle's (MIT licence, (c) 2024 PINNacle Dev Team) and are
# never committed to this project.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-${PF_DATA_DIR:-$here/data/ref}}
manifest=$here/data/pinnacle.sha256
base=https://raw.githubusercontent.com/i207M/PINNacle/6f8d69c9c84c41d19644e4ceebdc64c4a11d3adf/ref
mkdir -p "$dir"

grep -v '^#' "$manifest" | while read -r sum name; do
    [ -n "$name" ] || continue
    if [ -f "$dir/$name" ] && echo "$sum  $dir/$name" | sha256sum -c --status; then
        echo "ok        $name"
        continue
    fi
    tmp="$dir/.$name.part"
    if curl -fsSL --connect-timeout 10 -o "$tmp" "$base/$name" 2>/dev/null &&
        echo "$sum  $tmp" | sha256sum -c --status; then
        mv "$tmp" "$dir/$name"
        echo "fetched   $name"
    else
        rm -f "$tmp"
        echo "MISSING   $name  (get $base/$name, SHA-256 $sum)" >&2
        echo x >> "$dir/.missing"
    fi
done
if [ -f "$dir/.missing" ]; then
    rm -f "$dir/.missing"
    echo "fetch-data: some files could not be fetched into $dir (no network?);" >&2
    echo "fetch-data: copy them there by hand, or set PF_DATA_DIR to a folder that has them" >&2
    exit 1
fi
echo "fetch-data: all reference files present and verified in $dir"
