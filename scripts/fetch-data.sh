#!/bin/sh
# Put the reference data into their folders and verify them: PINNacle's
# reference files and PINNsAgent's knowledge base.
#
#   scripts/fetch-data.sh [DIR [PA_DIR]]
#
#   DIR     PINNacle's files, listed in data/pinnacle.sha256
#           (default: $PF_DATA_DIR, else data/ref)
#   PA_DIR  PINNsAgent's files, listed in data/pinnsagent.sha256
#           (default: $PF_PINNSAGENT_DIR, else data/ref/pinnsagent)
#
# Every listed file that is missing from its folder, or whose SHA-256
# differs, is taken from the first of these that has it with the listed
# SHA-256; a file that fails its checksum is never kept:
#   1. the team's shared folder (for machines without a network):
#      $PF_SHARED_DATA/pinnacle/<name>, $PF_SHARED_DATA/pinnsagent/<name>
#      (default ../shared/data beside the checkout), copied;
#   2. the network (curl), each repository at a pinned commit:
#      PINNacle (i207M/PINNacle), ref/<name>; PINNsAgent
#      (qingpowuwu/PINNsAgent_Codes), data/dataset_for_retrieval.csv, and
#      database/pde_encoder.py, whose PDE_LABELS dict
#      scripts/pinnsagent-labels.py turns into pde_labels.tsv (PINNsAgent
#      has no such file). After the first download that cannot reach its
#      server, no other is tried.
# Exit 0 when every file is there and verified; 1 otherwise, after naming
# each missing or damaged file and where it comes from (make test goes on:
# the tests that need a missing file skip, saying "data missing:"; a
# damaged file that stays fails them). 2 bad usage.
#
# Environment, besides PF_DATA_DIR, PF_PINNSAGENT_DIR and PF_SHARED_DATA:
# PF_PINNACLE_URL, PF_PINNSAGENT_URL, the repositories' raw base URLs at
# the pinned commits (the tests point them at file:// folders).
#
# The files are PINNacle's (MIT licence, (c) 2024 PINNacle Dev Team) and
# PINNsAgent's; they are never committed to this project.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -le 2 ] || { echo "usage: scripts/fetch-data.sh [DIR [PA_DIR]]" >&2; exit 2; }
dir=${1:-${PF_DATA_DIR:-$here/data/ref}}
pa_dir=${2:-${PF_PINNSAGENT_DIR:-$here/data/ref/pinnsagent}}
shared=${PF_SHARED_DATA:-$here/../shared/data}
shared=$(cd "$shared" 2>/dev/null && pwd || echo "$shared")
pinnacle_url=${PF_PINNACLE_URL:-https://raw.githubusercontent.com/i207M/PINNacle/6f8d69c9c84c41d19644e4ceebdc64c4a11d3adf}
pinnsagent_url=${PF_PINNSAGENT_URL:-https://raw.githubusercontent.com/qingpowuwu/PINNsAgent_Codes/478d8e4e64f8b53820b0fd8e3d62d2018135ab9a}

offline=            # set after a download that could not reach its server
missing=0

sum_ok() { # sum_ok SHA256 FILE
    [ -f "$2" ] && echo "$1  $2" | sha256sum -c --status 2>/dev/null
}

# download URL FILE: 0 done; 1 failed (offline set when the server could not
# be reached: anything but "no such file" there).
download() {
    if [ -n "$offline" ]; then return 1; fi
    if ! command -v curl >/dev/null 2>&1; then
        offline="curl not found"
        return 1
    fi
    rc=0
    curl -fsSL --connect-timeout 10 --max-time 600 -o "$2" "$1" </dev/null 2>/dev/null || rc=$?
    case $rc in
    0) return 0 ;;
    22 | 37) return 1 ;; # HTTP error (404 ...), file:// without the file
    *) offline="no network? curl exit $rc on $1"; return 1 ;;
    esac
}

# fetch SET DIR SUM NAME SOURCE: put NAME with SHA-256 SUM into DIR. SOURCE
# is the path in the repository (its raw base URL: SET's), or
# "derive-labels:<path>" for pde_labels.tsv.
fetch() {
    set_=$1 d=$2 sum=$3 name=$4 src=$5
    if sum_ok "$sum" "$d/$name"; then
        present=$((present + 1))
        return 0
    fi
    was=; [ -e "$d/$name" ] && was="replaced a damaged copy: "
    tmp="$d/.$name.part"
    rm -f "$tmp"
    if sum_ok "$sum" "$shared/$set_/$name" && cat "$shared/$set_/$name" 2>/dev/null >"$tmp" &&
        sum_ok "$sum" "$tmp" && mv -f "$tmp" "$d/$name"; then
        echo "copied    $name  (${was}from $shared/$set_)"
        present=$((present + 1))
        return 0
    fi
    rm -f "$tmp"
    case $set_ in pinnacle) base=$pinnacle_url ;; *) base=$pinnsagent_url ;; esac
    case $src in
    derive-labels:*)
        url=$base/${src#derive-labels:}
        if download "$url" "$tmp.py" && python3 "$here/scripts/pinnsagent-labels.py" "$tmp.py" </dev/null >"$tmp" &&
            sum_ok "$sum" "$tmp" && mv -f "$tmp" "$d/$name"; then
            rm -f "$tmp.py"
            echo "derived   $name  (${was}from $url)"
            present=$((present + 1))
            return 0
        fi
        rm -f "$tmp.py" "$tmp"
        from="PDE_LABELS of $url, by scripts/pinnsagent-labels.py"
        ;;
    *)
        url=$base/$src
        if download "$url" "$tmp" && sum_ok "$sum" "$tmp" && mv -f "$tmp" "$d/$name"; then
            echo "fetched   $name  (${was}from $url)"
            present=$((present + 1))
            return 0
        fi
        rm -f "$tmp"
        from=$url
        ;;
    esac
    [ -z "$was" ] || was="the copy in $d fails its SHA-256; "
    echo "MISSING   $name  (${was}get it from $from, SHA-256 $sum)" >&2
    missing=$((missing + 1))
}

# each SET DIR: every file of data/SET.sha256 into DIR.
each() {
    set_=$1 d=$2 present=0 listed=0
    mkdir -p "$d" 2>/dev/null || true
    while read -r sum name; do
        case $sum in '#'* | '') continue ;; esac
        listed=$((listed + 1))
        case $set_/$name in
        pinnacle/*) src=ref/$name ;;
        pinnsagent/pde_labels.tsv) src=derive-labels:database/pde_encoder.py ;;
        pinnsagent/*) src=data/$name ;;
        esac
        fetch "$set_" "$d" "$sum" "$name" "$src"
    done <"$here/data/$set_.sha256"
    echo "fetch-data: $set_: $present of $listed files present and verified in $d"
}

each pinnacle "$dir"
each pinnsagent "$pa_dir"
if [ "$missing" -gt 0 ]; then
    echo "fetch-data: $missing file(s) could not be had (${offline:-not at the pinned commits, or failing their SHA-256});" >&2
    echo "fetch-data: copy them by hand into the folders above, or set PF_DATA_DIR / PF_PINNSAGENT_DIR to folders that have them;" >&2
    echo "fetch-data: the tests that need a missing file skip (\"data missing:\"); a damaged one fails them" >&2
    exit 1
fi
