#!/usr/bin/env bash
# Builds sites from generated Claude Code sessions, 100, 1,000 and 10,000 of
# them, and prints a Markdown table: the cold build (the median of RUNS),
# sessions/s, MB/s of input, peak RSS, the warm rebuild, and what the
# search index adds to the cold build (the same build with search off).
#
#   scripts/bench.sh                      # all three sizes
#   SIZES="1000" RUNS=5 scripts/bench.sh  # one size, five runs
#   WORK=/tmp/tsbench scripts/bench.sh    # keep corpora and sites there
#   PAGEFIND=npm scripts/bench.sh         # also compare search with Pagefind
#                                         # (installed from npm, or give the
#                                         # path of its binary) on the
#                                         # 1,000-session site
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${SIZES:-100 1000 10000}
runs=${RUNS:-3}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
go build -o "$work/transcriptsite" ./cmd/transcriptsite
go build -o "$work/gensessions" ./cmd/gensessions

# build ARGS...: one cold or warm build; prints its seconds and peak RSS in
# KB. Each starts with the disk flushed, so that the writes of one build do
# not slow the next.
build() {
	sync
	{ /usr/bin/time -f '%e %M' "$work/transcriptsite" build --quiet "$@" >/dev/null; } 2>&1 | tail -1
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "transcriptsite $(git rev-parse --short HEAD), $(nproc) cores, $(date -u +%F)"
echo
echo "| sessions | input MB | cold s | sessions/s | MB/s | peak RSS MB | warm s | warm % of cold | search index adds |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $sizes; do
	corpus=$work/corpus-$n
	[ -d "$corpus" ] || "$work/gensessions" -out "$corpus" -n "$n" -seed 1 >/dev/null
	site=$work/site-$n
	mkdir -p "$site"
	printf 'title: Benchmark\n' >"$site/config.yaml"
	printf 'title: Benchmark\nsearch:\n  enabled: false\n' >"$site/nosearch.yaml"
	r=$runs
	[ "$n" -ge 10000 ] && r=${RUNS:-1}
	cold=() rss=() plain=()
	for _ in $(seq "$r"); do
		rm -rf "$site/public" "$site/cache" "$site/public-plain" "$site/cache-plain"
		read -r s kb < <(build -s "$site" --contentDir "$corpus" --cacheDir "$site/cache")
		cold+=("$s") rss+=("$kb")
		read -r s _ < <(build -s "$site" --config "$site/nosearch.yaml" --contentDir "$corpus" \
			--cacheDir "$site/cache-plain" -d "$site/public-plain")
		plain+=("$s")
	done
	read -r warm _ < <(build -s "$site" --contentDir "$corpus" --cacheDir "$site/cache")
	c=$(printf '%s\n' "${cold[@]}" | median)
	p=$(printf '%s\n' "${plain[@]}" | median)
	k=$(printf '%s\n' "${rss[@]}" | median)
	bytes=$(du -sb "$corpus" | cut -f1)
	awk -v n="$n" -v b="$bytes" -v c="$c" -v k="$k" -v w="$warm" -v p="$p" 'BEGIN {
		printf "| %d | %.0f | %.1f | %.0f | %.1f | %.0f | %.1f | %.0f%% | %+.0f%% |\n",
			n, b / 1e6, c, n / c, b / 1e6 / c, k / 1024, w, 100 * w / c, 100 * (c - p) / p
	}'
done

if [ -n "${PAGEFIND:-}" ] && [ -d "$work/site-1000/public" ]; then
	if [ "$PAGEFIND" = npm ]; then
		npm install --silent --prefix "$work/pagefind" pagefind@1.6.0 >/dev/null
		PAGEFIND=$work/pagefind/node_modules/@pagefind/linux-x64/bin/pagefind_extended
	fi
	echo
	go run ./internal/benchsearch -site "$work/site-1000/public" -pagefind "$PAGEFIND" \
		-q "retry,stream handler error,E0382,danly/response.py,toolu_01kpWpL0EOpRm31BNzQhdhT7,smap/danly"
fi
