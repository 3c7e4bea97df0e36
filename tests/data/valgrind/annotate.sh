#!/bin/sh
# annotate.sh FILE EVENT: callgrind_annotate's own cost of every
# "file:function" in EVENT, one "COST KEY" line each, sorted (run from / so
# that it strips no directory from the file names).
f=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd / && callgrind_annotate --auto=no --threshold=100 --inclusive=no --show="$2" --sort="$2" "$f" |
	awk '/^-+$/ { sep++; next } sep >= 5 && NF >= 3 && $1 ~ /^[0-9,]+$/ {
		c = $1; gsub(/,/, "", c)
		line = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", line); sub(/ \[[^]]*\]$/, "", line)
		if (c + 0 > 0) print c, line }' | LC_ALL=C sort -k2
