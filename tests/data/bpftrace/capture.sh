#!/bin/sh
# How the captures of this directory were made (as root, bpftrace 0.17,
# Debian 12, x86_64): burn.c built at -O0 with frame pointers, once with symbols and
# once stripped; each capture samples the running program for one second and
# exits while it still runs (bpftrace reads the symbols at exit); the program
# is then stopped.
#   sh capture.sh OUTDIR [NAME.txt]...   (all the captures when no NAME)
set -e
out=${1:-.}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -g -O0 -fno-omit-frame-pointer \
	-o "$tmp/burn" "$dir/burn.c"
cp "$tmp/burn" "$tmp/burnstrip" && strip "$tmp/burnstrip"
shift $(($# > 0))
only=" $* "
# cap PROG FILE PROGRAM: runs PROG while bpftrace runs PROGRAM for 1 s, then
# stops it: the program must still run when bpftrace reads its symbols, at
# exit, however long bpftrace takes to start on a busy machine
cap() {
	[ "$only" = "  " ] || case $only in *" $2 "*) ;; *) return 0 ;; esac
	"$tmp/$1" 600 1 &
	pid=$!
	sleep 0.2
	bpftrace -e "$3 interval:ms:1000 { exit(); }" > "$out/$2" 2> /dev/null || true
	kill "$pid" 2> /dev/null || true
	wait "$pid" 2> /dev/null || true
}
cap burn ustack-comm-pid.txt 'profile:hz:999 /comm == "burn"/ { @[ustack, comm, pid] = count(); }'
cap burnstrip stripped.txt 'profile:hz:999 /comm == "burnstrip"/ { @[ustack, comm, pid] = count(); }'
cap burnstrip stripped-perf.txt 'profile:hz:999 /comm == "burnstrip"/ { @[ustack(perf), kstack(perf), pid] = count(); }'
cap burn kstack-ustack.txt 'profile:hz:999 /comm == "burn"/ { @[kstack, ustack, comm] = count(); }'
cap burn perf.txt 'profile:hz:999 /comm == "burn"/ { @[kstack(perf), ustack(perf), comm, tid] = count(); @depth[ustack(2), kstack(3), cpu] = count(); }'
cap burn sum.txt 'uprobe:/lib/x86_64-linux-gnu/libc.so.6:write /comm == "burn"/ { @bytes[ustack, comm] = sum(arg2); @calls[ustack(3)] = count(); }'
cap burn hist.txt 'uprobe:/lib/x86_64-linux-gnu/libc.so.6:write /comm == "burn"/ { @calls[ustack(2)] = count(); @sizes[ustack(2)] = hist(arg2); }'
cap burn mixed.txt 'profile:hz:999 /comm == "burn"/ { @k[kstack(2)] = count(); @n = count(); @c[comm, cpu] = count(); @l = lhist(cpu, 0, 8, 2); @s[comm] = stats(cpu); }'
cap burn write.txt 'uprobe:/lib/x86_64-linux-gnu/libc.so.6:write /comm == "burn"/ { @bytes[ustack, comm] = sum(arg2); @calls[ustack] = count(); @sizes = hist(arg2); }'
