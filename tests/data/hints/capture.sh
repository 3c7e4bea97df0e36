#!/bin/sh
# How the captures of this directory were made (as root, perf 6.1, bpftrace
# 0.17, Debian 12, x86_64):
#  nofp.perf.txt: nofp.c built at -O2 without frame pointers (as /tmp/docs/fp,
#    the name the capture shows), recorded with
#    frame-pointer call chains (perf record -g): most stacks stop after one
#    or two frames; the first 200 samples of perf script.
#  nopid-stripped.txt: ../bpftrace/burn.c stripped, sampled by bpftrace with
#    a map key without pid, so its user frames stay bare addresses.
#   sh capture.sh OUTDIR
set -e
out=${1:-.}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -fomit-frame-pointer -o "$tmp/fp" "$dir/nofp.c"
perf record -F 999 -g -o "$tmp/nofp.data" "$tmp/fp" 2>/dev/null
perf script -i "$tmp/nofp.data" | awk 'BEGIN { RS = ""; ORS = "\n\n" } NR <= 200' > "$out/nofp.perf.txt"
cc -g -O0 -fno-omit-frame-pointer -o "$tmp/burnstrip" "$dir/../bpftrace/burn.c"
strip "$tmp/burnstrip"
"$tmp/burnstrip" 2.5 1 &
pid=$!
sleep 0.2
bpftrace -e 'profile:hz:999 /comm == "burnstrip"/ { @[ustack, comm] = count(); } interval:ms:1000 { exit(); }' \
	> "$out/nopid-stripped.txt" 2> /dev/null
wait $pid
