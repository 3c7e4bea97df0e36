#!/bin/sh
# make-expected.sh [new]: writes pprof/NAME.txt, go tool pprof -top's output
# for each line of ./cases, from cpu.pprof; with "new", first a new
# cpu.pprof of this directory's program (go build; 6 seconds of work).
set -eu
cd "$(dirname "$0")"
if [ "${1:-}" = new ]; then
	go build -o "${TMPDIR:-/tmp}/filters-prog" . && "${TMPDIR:-/tmp}/filters-prog" cpu.pprof
fi
grep -v '^#' cases | while IFS='@' read -r name pflags _; do
	# shellcheck disable=SC2086
	go tool pprof -top $pflags cpu.pprof < /dev/null > "pprof/$name.txt" 2>/dev/null
done
