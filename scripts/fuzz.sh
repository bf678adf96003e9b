#!/usr/bin/env bash
# Fuzzes every reader and the markdown and tool rendering, one target after
# another, for FUZZTIME each (default 10m). A crash leaves its input under
# the package's testdata/fuzz/<target>/, where `go test` replays it from
# then on: commit it with the fix as the regression test.
#   FUZZTIME=10m PARALLEL=1 scripts/fuzz.sh [target-regexp]
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10m}
parallel=${PARALLEL:-1}
match=${1:-.}
failed=0
for pkg in $(go list ./ingest/... ./render ./site); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' | grep -E "$match"); do
		start=$(date +%s)
		if go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -parallel "$parallel" "$pkg" >"/tmp/fuzz-$target.log" 2>&1; then
			result=ok
		else
			result=FAIL
			failed=1
		fi
		execs=$(grep -o 'execs: [0-9]*' "/tmp/fuzz-$target.log" | tail -1 | cut -d' ' -f2)
		echo "$result $pkg $target $(( $(date +%s) - start ))s ${execs:-0} execs (log /tmp/fuzz-$target.log)"
	done
done
exit $failed
