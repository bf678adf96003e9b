#!/usr/bin/env bash
# Builds sites from generated Claude Code sessions, 100, 1,000 and 10,000 of
# them, and prints a Markdown table: the cold build (the median of RUNS),
# sessions/s, MB/s of input, peak RSS, the warm rebuild, and what the search
# index and redaction each add to the cold build (the same build with search
# off, and with redaction off).
#
#   scripts/bench.sh                      # all three sizes
#   SIZES="1000" RUNS=5 scripts/bench.sh  # one size, five runs
#   WORK=/tmp/tsbench scripts/bench.sh    # keep corpora and sites there
#   PAGEFIND=npm scripts/bench.sh         # also compare search with Pagefind
#                                         # (installed from npm, or give the
#                                         # path of its binary) on the
#                                         # 1,000-session site
#   BIG=1 scripts/bench.sh                # also one session of ~505 MB:
#                                         # cold and warm time and peak RSS
#   HUGE=1 scripts/bench.sh               # also one session of ~2 GB, cold:
#                                         # time and peak RSS
#   SERVE=1 scripts/bench.sh              # also `serve` while a 22 MB session
#                                         # grows a line at a time: RSS after
#                                         # the first build and after 50
#                                         # rebuilds, peak RSS, cache size
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${SIZES-100 1000 10000} # SIZES= builds none of them
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
[ -n "$sizes" ] && echo "| sessions | input MB | cold s | sessions/s | MB/s | peak RSS MB | warm s | warm % of cold | search index adds | redaction adds |"
[ -n "$sizes" ] && echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in $sizes; do
	corpus=$work/corpus-$n
	[ -d "$corpus" ] || "$work/gensessions" -out "$corpus" -n "$n" -seed 1 >/dev/null
	site=$work/site-$n
	rm -rf "$site"
	sync
	sleep 5 # the file system frees what was deleted for a few seconds after
	mkdir -p "$site"
	printf 'title: Benchmark\n' >"$site/config.yaml"
	printf 'title: Benchmark\nsearch:\n  enabled: false\n' >"$site/nosearch.yaml"
	printf 'title: Benchmark\nredact:\n  enabled: false\n' >"$site/noredact.yaml"
	r=$runs
	[ "$n" -ge 10000 ] && r=${RUNS:-1}
	# Every build writes into directories of its own, and nothing is
	# deleted until the size is done: the file system frees what is deleted
	# while the next build runs, which would slow it.
	cold=() rss=() plain=() open=()
	for i in $(seq "$r"); do
		read -r s kb < <(build -s "$site" --contentDir "$corpus" --cacheDir "$site/cache-$i" -d "$site/public-$i")
		cold+=("$s") rss+=("$kb")
		read -r s _ < <(build -s "$site" --config "$site/nosearch.yaml" --contentDir "$corpus" \
			--cacheDir "$site/cache-nosearch-$i" -d "$site/public-nosearch-$i")
		plain+=("$s")
		read -r s _ < <(build -s "$site" --config "$site/noredact.yaml" --contentDir "$corpus" \
			--cacheDir "$site/cache-noredact-$i" -d "$site/public-noredact-$i")
		open+=("$s")
	done
	read -r warm _ < <(build -s "$site" --contentDir "$corpus" --cacheDir "$site/cache-1" -d "$site/public-1")
	echo "$n sessions: cold ${cold[*]}; search off ${plain[*]}; redaction off ${open[*]}; warm $warm" >&2
	c=$(printf '%s\n' "${cold[@]}" | median)
	p=$(printf '%s\n' "${plain[@]}" | median)
	o=$(printf '%s\n' "${open[@]}" | median)
	k=$(printf '%s\n' "${rss[@]}" | median)
	bytes=$(du -sb "$corpus" | cut -f1)
	awk -v n="$n" -v b="$bytes" -v c="$c" -v k="$k" -v w="$warm" -v p="$p" -v o="$o" 'BEGIN {
		printf "| %d | %.0f | %.1f | %.0f | %.1f | %.0f | %.1f | %.0f%% | %+.0f%% | %+.0f%% |\n",
			n, b / 1e6, c, n / c, b / 1e6 / c, k / 1024, w, 100 * w / c, 100 * (c - p) / p, 100 * (c - o) / o
	}'
	find "$site" -mindepth 1 -maxdepth 1 -name 'public-*' ! -name public-1 -exec rm -rf {} +
	find "$site" -mindepth 1 -maxdepth 1 -name 'cache-*' -exec rm -rf {} +
done

# one SIZE MESSAGES: one session of about that size, generated once and
# kept beside its corpus; prints its corpus dir.
one() {
	local corpus=$work/corpus-$1
	if [ ! -f "$corpus.txt" ]; then
		rm -rf "$corpus"
		"$work/gensessions" -out "$corpus" -n 1 -messages "$2" -images -seed 1 >"$corpus.txt"
	fi
	echo "$corpus"
}

if [ -n "${BIG:-}" ]; then
	corpus=$(one big 92000)
	msgs=$(grep -o 'messages=[0-9]*' "$corpus.txt" | cut -d= -f2)
	imgs=$(grep -o 'images=[0-9]*' "$corpus.txt" | cut -d= -f2)
	site=$work/site-big
	rm -rf "$site" && mkdir -p "$site" && printf 'title: Benchmark\n' >"$site/config.yaml"
	read -r c ck < <(build -s "$site" --contentDir "$corpus" --cacheDir "$site/cache" -d "$site/public")
	read -r w wk < <(build -s "$site" --contentDir "$corpus" --cacheDir "$site/cache" -d "$site/public")
	echo
	echo "| one session | input MB | cold s | cold peak RSS MB | warm s | warm peak RSS MB |"
	echo "|---|---:|---:|---:|---:|---:|"
	awk -v m="$msgs" -v i="$imgs" -v b="$(du -sb "$corpus" | cut -f1)" -v c="$c" -v ck="$ck" -v w="$w" -v wk="$wk" 'BEGIN {
		printf "| %d messages, %d images | %.0f | %.1f | %.0f | %.1f | %.0f |\n", m, i, b / 1e6, c, ck / 1024, w, wk / 1024
	}'
	rm -rf "$site"
fi

if [ -n "${HUGE:-}" ]; then
	corpus=$(one huge 370000)
	site=$work/site-huge
	rm -rf "$site" && mkdir -p "$site" && printf 'title: Benchmark\n' >"$site/config.yaml"
	read -r c ck < <(build -s "$site" --contentDir "$corpus" --cacheDir "$site/cache" -d "$site/public")
	echo
	echo "| one session | input MB | cold s | cold peak RSS MB |"
	echo "|---|---:|---:|---:|"
	awk -v m="$(grep -o 'messages=[0-9]*' "$corpus.txt" | cut -d= -f2)" -v b="$(du -sb "$corpus" | cut -f1)" -v c="$c" -v ck="$ck" 'BEGIN {
		printf "| %d messages | %.0f | %.1f | %.0f |\n", m, b / 1e6, c, ck / 1024
	}'
	rm -rf "$site"
fi

if [ -n "${SERVE:-}" ]; then
	# serve reads a 22 MB session, then takes 50 rebuilds as its last 50
	# lines are appended one at a time, each after the rebuild before.
	src=$work/corpus-grow
	[ -d "$src" ] || "$work/gensessions" -out "$src" -n 1 -messages 4000 -seed 3 >/dev/null
	file=$(find "$src" -name '*.jsonl')
	site=$work/site-serve
	rm -rf "$site" && mkdir -p "$site/content" && printf 'title: Benchmark\n' >"$site/config.yaml"
	total=$(wc -l <"$file")
	head -n $((total - 50)) "$file" >"$site/content/s.jsonl"
	"$work/transcriptsite" serve -s "$site" --port 0 --cacheDir "$site/cache" >"$site/out.txt" 2>&1 &
	pid=$!
	builds() { grep -c ' rendered)$' "$site/out.txt" || true; }
	rss() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$pid/status"; }
	wait_builds() { while [ "$(builds)" -lt "$1" ]; do sleep 0.05; done; }
	wait_builds 1
	sleep 1 # what the first build freed is returned
	first=$(rss VmRSS)
	for i in $(seq 50); do
		sed -n "$((total - 50 + i))p" "$file" >>"$site/content/s.jsonl"
		wait_builds $((i + 1))
	done
	sleep 1
	last=$(rss VmRSS) peak=$(rss VmHWM)
	kill "$pid" && wait "$pid" || true
	echo
	echo "| serve, one session growing | input MB | RSS after the first build MB | RSS after 50 rebuilds MB | peak RSS MB | cache MB |"
	echo "|---|---:|---:|---:|---:|---:|"
	awk -v n="$((total - 50))" -v b="$(stat -c %s "$site/content/s.jsonl")" -v f="$first" -v l="$last" -v p="$peak" -v c="$(du -sb "$site/cache" | cut -f1)" 'BEGIN {
		printf "| %d lines, then 50 more one at a time | %.0f | %.0f | %.0f | %.0f | %.0f |\n", n, b / 1e6, f / 1024, l / 1024, p / 1024, c / 1e6
	}'
	rm -rf "$site"
fi

if [ -n "${PAGEFIND:-}" ] && [ -d "$work/site-1000/public-1" ]; then
	if [ "$PAGEFIND" = npm ]; then
		npm install --silent --prefix "$work/pagefind" pagefind@1.6.0 >/dev/null
		PAGEFIND=$work/pagefind/node_modules/@pagefind/linux-x64/bin/pagefind_extended
	fi
	echo
	go run ./cmd/benchsearch -site "$work/site-1000/public-1" -pagefind "$PAGEFIND" \
		-q "retry,stream handler error,E0382,danly/response.py,toolu_01kpWpL0EOpRm31BNzQhdhT7,smap/danly"
fi
