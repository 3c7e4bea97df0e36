#!/bin/sh
# bench/perftext-copies.sh N < TEXT > OUT - N copies of a `perf script`
# text capture, the pids (and tids) of copy k (from 0) shifted by
# k * 100000, so that each copy's processes are distinct: the large capture
# of issue 29 (25 copies of a build capture) from bench/data's one.
set -e
[ $# -eq 1 ] || { echo "usage: bench/perftext-copies.sh N < TEXT > OUT" >&2; exit 2; }
tmp=${TMPDIR:-/tmp}/perftext-copies.$$
trap 'rm -f "$tmp"' EXIT
cat > "$tmp"
k=0
while [ $k -lt "$1" ]; do
	# a sample header: "comm PID[/TID] [CPU]? TIME: ..." (not indented)
	awk -v d=$((k * 100000)) '
	/^[^ \t]/ && match($0, /[ \t][0-9]+(\/[0-9]+)?[ \t]+(\[[0-9]+\][ \t]+)?[0-9]+\.[0-9]+:/) {
		pre = substr($0, 1, RSTART); tok = substr($0, RSTART + 1, RLENGTH - 1)
		post = substr($0, RSTART + RLENGTH)
		i = index(tok, " "); j = index(tok, "\t")
		if (j && (!i || j < i)) i = j
		id = substr(tok, 1, i - 1); rest = substr(tok, i)
		s = index(id, "/")
		if (s) id = (substr(id, 1, s - 1) + d) "/" (substr(id, s + 1) + d)
		else id = id + d
		print pre id rest post; next
	}
	{ print }' "$tmp"
	k=$((k + 1))
done
