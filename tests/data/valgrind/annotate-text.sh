#!/bin/sh
# annotate-text.sh: callgrind_annotate's printed table (standard input), one
# "COST KEY" line per "file:function", sorted; as annotate.sh.
awk '/^-+$/ { sep++; next } sep >= 5 && NF >= 3 && $1 ~ /^[0-9,]+$/ {
	c = $1; gsub(/,/, "", c)
	line = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", line); sub(/ \[[^]]*\]$/, "", line)
	if (c + 0 > 0) print c, line }' | LC_ALL=C sort -k2
