#!/usr/bin/env bash
# Counts the instructions of cold builds with valgrind's callgrind, which
# counts the same for the same binary and input whatever else the machine
# does: on a shared VM whose CPU-seconds swing by a third within minutes,
# the one figure that shows a change of a few percent. For each binary, a
# build of copy 1 of the distinct corpus (scripts/realx20.sh) and one of
# copies 1 and 2; their difference is what a copy costs, the rest what
# any build costs (templates, lexers and rules compiled, the theme hashed).
#
#   WORK=/tmp/x20 scripts/realx20.sh                      # makes $WORK/realx20-words once
#   CORPUS=/tmp/x20/realx20-words BINS="/tmp/old /tmp/new" scripts/instructions.sh
#
# With GOMAXPROCS=1, no preemption by signal (valgrind cannot follow it)
# and GOGC=off: collections start when the heap says so, and their work
# varies with timing; without them the count varies by about 0.1 %, so
# what fewer allocations save the collector is not in it. Run it on an
# otherwise idle machine: beside a busy process the build's goroutines
# interleave otherwise, other memo lookups hit, and counts move by 1 %. Under valgrind
# Go hashes with AVX2, not the SHA extensions the CPU has, so hashing
# counts several times what it costs outside. About a minute a binary.
set -euo pipefail
corpus=${CORPUS:?the distinct corpus, made by scripts/realx20.sh}
read -ra bins <<<"${BINS:?the binaries to count}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/one" "$work/two"
cp -r "$corpus/1" "$work/one/"
cp -r "$corpus/1" "$corpus/2" "$work/two/"
printf 'title: Benchmark\n' >"$work/config.yaml"

# count BIN DIR: the instructions of one cold build of DIR.
count() {
	local out=$work/out
	rm -rf "$out"
	GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
		"$1" build --quiet -s "$work" --config "$work/config.yaml" --contentDir "$2" --cacheDir "$out/cache" -d "$out/public" 2>&1 |
		sed -nE 's/.*Collected : ([0-9]+).*/\1/p'
}

printf '| binary | 1 copy (M instructions) | 2 copies | a copy | any build |\n|---|---:|---:|---:|---:|\n'
for b in "${bins[@]}"; do
	one=$(count "$b" "$work/one")
	two=$(count "$b" "$work/two")
	awk -v b="$b" -v one="$one" -v two="$two" 'BEGIN { printf "| %s | %.0f | %.0f | %.0f | %.0f |\n", b, one / 1e6, two / 1e6, (two - one) / 1e6, (2 * one - two) / 1e6 }'
done
