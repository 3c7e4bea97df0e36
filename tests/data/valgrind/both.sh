#!/bin/sh
# both.sh THEIRS OURS: for every key that both "COST KEY" files hold,
# "KEY<TAB>THEIRS<TAB>OURS", sorted by key.
tab=$(printf '\t')
kc() { awk '{ c = $1; sub(/^[^ ]+ /, ""); print $0 "\t" c }' "$1" | LC_ALL=C sort -t "$tab" -k1,1; }
kc "$1" > "$1.kc"
kc "$2" > "$2.kc"
LC_ALL=C join -t "$tab" "$1.kc" "$2.kc"
rm -f "$1.kc" "$2.kc"
