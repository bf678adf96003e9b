#!/usr/bin/env bash
# Builds the real Claude Code sessions of the shared corpus copied 20 times,
# each copy with session ids, agent ids and file names of its own so that
# nothing merges (97 MB, 180 transcripts), and by default with words of its
# own too (scripts/distinct.py): every word of the text, code and tool
# output is spelt its own way in each copy, except keywords, file
# extensions and tag names, as a user's first build of their own archive
# meets only new text. It prints what cold builds cost:
# wall seconds, user+sys CPU seconds, MB of input per CPU-second and peak
# RSS, with GOMAXPROCS=2 and GOMAXPROCS=1 in turns; then one warm rebuild.
#
#   scripts/realx20.sh                         # 3 runs of each
#   TEXT=same scripts/realx20.sh               # copies with the same text: a measure of the
#                                              # memos (highlight, Markdown), which replay
#                                              # each copy after the first
#   TEXT=the-return scripts/realx20.sh         # only " the " and " return " made distinct
#                                              # (TEXT=words, the default, makes most words so)
#   RUNS=5 scripts/realx20.sh
#   BINS="/tmp/old /tmp/new" scripts/realx20.sh  # binaries side by side, in turns
#   PROFILE=cpu.prof scripts/realx20.sh        # also one cold build's CPU profile
#   WORK=/tmp/x20 scripts/realx20.sh           # keep the corpus and sites there
#   OUT=/dev/shm/x20 scripts/realx20.sh        # write the sites and caches there: on tmpfs, the
#                                              # system time of creating files does not swing
#                                              # with what the file system freed before
#   CONFIG=site.yaml scripts/realx20.sh        # another config (default: a title)
#   SETTLE=70 PAUSE=5 scripts/realx20.sh       # seconds to wait after removing the earlier
#                                              # sites, and before each build (default 5 and 5)
#   APART=1 scripts/realx20.sh                 # also, in each run, two GOMAXPROCS=1 builds at once
#                                              # (each its own process and site): what two cores give
#                                              # this work with nothing shared, the ceiling for 1 vs 2
#   CCT="$(scripts/peers.sh)" scripts/realx20.sh
#                                              # also claude-code-transcripts, in turns
#                                              # (all --include-agents, on the same files)
#   CCL="$(scripts/peers.sh --ccl)" scripts/realx20.sh
#                                              # also claude-code-log, in turns (--all-projects
#                                              # on the same files; 0.2.7 reads no subagents)
#
# The corpus is made in WORK, never in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
work=${WORK:-$(mktemp -d)}
src=${SRC:-../shared/corpus/claude-code/claude-code-log-real}
mkdir -p "$work"
sites=${OUT:-$work}
mkdir -p "$sites"
if [ -z "${BINS:-}" ]; then
	go build -o "$work/transcriptsite" ./cmd/transcriptsite
	BINS=$work/transcriptsite
fi
read -ra bins <<<"$BINS"

# The ids to make unique: every session id and agent id the files name.
text=${TEXT:-words}
case $text in
same | the-return | words) ;;
*) echo "TEXT is same, the-return or words" >&2 && exit 2 ;;
esac
corpus=$work/realx20-$text
if [ ! -f "$corpus.done" ]; then
	rm -rf "$corpus"
	ids=$( (grep -rhoE '"(sessionId|agentId)":"[^"]+"' "$src" | cut -d'"' -f4
		find "$src" -type f -printf '%f\n' | sed -nE 's/^(agent-)?([0-9a-f-]+)\.(jsonl|meta\.json)$/\2/p') | sort -u)
	for k in $(seq 1 20); do
		# An id keeps its length and form: its last two characters become k in hex.
		expr=()
		for id in $ids; do expr+=(-e "s/$id/${id%??}$(printf %02x "$k")/g"); done
		(cd "$src" && find . -type f) | while read -r f; do
			out=$corpus/$k/$(printf '%s' "$f" | sed "${expr[@]}")
			mkdir -p "$(dirname "$out")"
			if [ "$text" = same ] || [[ $f != *.jsonl ]]; then
				sed "${expr[@]}" "$src/$f" >"$out"
			else
				sed "${expr[@]}" "$src/$f" | python3 scripts/distinct.py "$k" "$text" >"$out"
			fi
		done
	done
	touch "$corpus.done"
fi
mb=$(du -sb "$corpus" | awk '{printf "%.1f", $1 / 1e6}')
config=${CONFIG:-$work/config.yaml}
[ -n "${CONFIG:-}" ] || printf 'title: Benchmark\n' >"$config"

# build BIN DIR [ENV...]: one cold build into DIR; prints wall, user and
# system CPU seconds, and peak RSS in KB. Each starts with the disk flushed
# and a pause: on ext4 without a journal, creating a file skips every
# inode deleted or written in the last seconds, one by one, so that the
# system time of a build depends on what ran just before it.
build() {
	sync
	sleep "${PAUSE:-5}"
	timed "$@"
}
# timed BIN DIR [ENV...]: build without the flush and pause.
timed() {
	local bin=$1 dir=$2
	shift 2
	{ env "$@" /usr/bin/time -f '%e %U %S %M' "$bin" build --quiet -s "$work" --config "$config" \
		--contentDir "$corpus" --cacheDir "$dir/cache" -d "$dir/public" >/dev/null; } 2>&1 | tail -1
}
# apart BIN DIR: two GOMAXPROCS=1 builds of BIN started together, each into
# a folder of DIR; prints the wall seconds until both are done.
apart() {
	sync
	sleep "${PAUSE:-5}"
	local t0 t1
	t0=$(date +%s.%N)
	timed "$1" "$2/a" GOMAXPROCS=1 >/dev/null &
	timed "$1" "$2/b" GOMAXPROCS=1 >/dev/null
	wait
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f\n", b - a}'
}
# flat: the same files laid out as ~/.claude/projects is (the copies'
# folders merged, by hard links); prints the folder.
flat() {
	local flat=$work/realx20-$text-flat
	if [ ! -d "$flat" ]; then
		rm -rf "$flat.part"
		for k in "$corpus"/*/; do
			(cd "$k" && find . -type f) | while read -r f; do
				mkdir -p "$flat.part/$(dirname "$f")" && ln "$k/$f" "$flat.part/$f"
			done
		done
		mv "$flat.part" "$flat"
	fi
	echo "$flat"
}
# peer DIR: one run of claude-code-transcripts over flat; prints what
# build prints.
peer() {
	local flat
	flat=$(flat)
	sync
	sleep "${PAUSE:-5}"
	{ /usr/bin/time -f '%e %U %S %M' sh -c "$CCT all -s '$flat' -o '$1' --include-agents -q >/dev/null 2>&1"; } 2>&1 | tail -1
}
# ccl DIR: one run of claude-code-log over flat; prints what build prints.
# It writes its pages beside the sessions (combined_transcripts.html in
# each project's folder, index.html above them), so it gets DIR/projects,
# a fresh folder of hard links to them (a copy where DIR is on another
# file system, as with OUT): new files go there, and no session is written
# through a link unless it bears one of those names (checked).
# HOME is DIR/home, so no cache of an earlier run is found (0.2.7 keeps
# none; later versions keep one in the projects' folder or under HOME).
ccl() {
	local flat
	flat=$(flat)
	if [ -n "$(find "$flat" -name index.html -o -name combined_transcripts.html -o -name 'cache*')" ]; then
		echo "$flat holds a name claude-code-log writes" >&2 && exit 1
	fi
	rm -rf "$1"
	mkdir -p "$1/home"
	cp -al "$flat" "$1/projects" 2>/dev/null || { rm -rf "$1/projects" && cp -a "$flat" "$1/projects"; }
	sync
	sleep "${PAUSE:-5}"
	{ HOME=$1/home /usr/bin/time -f '%e %U %S %M' sh -c "$CCL --all-projects '$1/projects' >/dev/null 2>&1"; } 2>&1 | tail -1
	[ -f "$1/projects/index.html" ] || echo "claude-code-log wrote no index.html in $1/projects" >&2
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

echo "realx20 (TEXT=$text): $mb MB, $(find "$corpus" -name '*.jsonl' | wc -l) files, $(nproc) cores, $(date -u +%F)"
echo
echo "| binary | GOMAXPROCS | wall s | user s | sys s | CPU s | MB/CPU-s | peak RSS MB | 1 vs 2 (wall) | two 1-core builds at once | warm CPU s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# Sites of an earlier run go first: the file system frees what is
# deleted for seconds after, which slows whatever runs then. And the first
# build of a run pays more system time than the next (the page cache and
# the disk's journal settle): one build of each binary, not counted.
rm -rf "$sites"/site-*
sync
sleep "${SETTLE:-5}"
for b in "${!bins[@]}"; do
	build "${bins[$b]}" "$sites/site-warmup-$b" >/dev/null
done
declare -A wall usr sys cpu rss pair
for i in $(seq "$runs"); do
	for b in "${!bins[@]}"; do
		for p in 2 1; do
			d=$sites/site-$b-$p-$i
			read -r w u y k < <(build "${bins[$b]}" "$d" GOMAXPROCS=$p)
			c=$(awk -v u="$u" -v y="$y" 'BEGIN {printf "%.2f", u + y}')
			echo "run $i ${bins[$b]} GOMAXPROCS=$p: $w s wall, $u user + $y sys = $c CPU-s, $((k / 1024)) MB" >&2
			wall[$b,$p]+="$w " usr[$b,$p]+="$u " sys[$b,$p]+="$y " cpu[$b,$p]+="$c " rss[$b,$p]+="$k "
		done
		if [ -n "${APART:-}" ]; then
			w=$(apart "${bins[$b]}" "$sites/site-$b-apart-$i")
			echo "run $i ${bins[$b]} two GOMAXPROCS=1 builds at once: $w s wall" >&2
			pair[$b]+="$w "
		fi
	done
	if [ -n "${CCT:-}" ]; then
		read -r w u y k < <(peer "$sites/site-cct-$i")
		c=$(awk -v u="$u" -v y="$y" 'BEGIN {printf "%.2f", u + y}')
		echo "run $i claude-code-transcripts: $w s wall, $u user + $y sys = $c CPU-s, $((k / 1024)) MB" >&2
		wall[cct]+="$w " cpu[cct]+="$c " rss[cct]+="$k "
	fi
	if [ -n "${CCL:-}" ]; then
		read -r w u y k < <(ccl "$sites/site-ccl-$i")
		c=$(awk -v u="$u" -v y="$y" 'BEGIN {printf "%.2f", u + y}')
		echo "run $i claude-code-log: $w s wall, $u user + $y sys = $c CPU-s, $((k / 1024)) MB" >&2
		wall[ccl]+="$w " cpu[ccl]+="$c " rss[ccl]+="$k "
	fi
done
for b in "${!bins[@]}"; do
	# The warm rebuild: the first run's cache and site, nothing changed.
	read -r _ wu wy _ < <(build "${bins[$b]}" "$sites/site-$b-2-1" GOMAXPROCS=2)
	wc=$(awk -v u="$wu" -v y="$wy" 'BEGIN {printf "%.2f", u + y}')
	w1=$(printf '%s\n' ${wall[$b,1]} | median)
	# Two builds' work in the pair's wall time, against one build's in w1.
	ceil=""
	[ -z "${APART:-}" ] || ceil=$(printf '%s\n' ${pair[$b]} | median | awk -v w1="$w1" '{printf "%.2f", 2 * w1 / $1}')
	for p in 2 1; do
		w=$(printf '%s\n' ${wall[$b,$p]} | median)
		u=$(printf '%s\n' ${usr[$b,$p]} | median)
		y=$(printf '%s\n' ${sys[$b,$p]} | median)
		c=$(printf '%s\n' ${cpu[$b,$p]} | median)
		k=$(printf '%s\n' ${rss[$b,$p]} | median)
		awk -v b="${bins[$b]}" -v p="$p" -v w="$w" -v u="$u" -v y="$y" -v c="$c" -v k="$k" -v mb="$mb" -v w1="$w1" -v wc="$wc" -v ap="$ceil" 'BEGIN {
			printf "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.1f | %.0f | %s | %s | %s |\n", b, p, w, u, y, c, mb / c, k / 1024,
				p == 2 ? sprintf("%.2f", w1 / w) : "", p == 2 ? ap : "", p == 2 ? wc : ""
		}'
	done
done
# against KEY NAME: a peer's medians over the runs, and each binary's
# ratio to them. MB/CPU-s is of the whole corpus, whatever the peer reads.
against() {
	local w c k
	w=$(printf '%s\n' ${wall[$1]} | median)
	c=$(printf '%s\n' ${cpu[$1]} | median)
	k=$(printf '%s\n' ${rss[$1]} | median)
	echo
	echo "$2, the same runs: $w s wall, $c CPU-s, $(awk -v mb="$mb" -v c="$c" 'BEGIN {printf "%.1f", mb / c}') MB/CPU-s, $((k / 1024)) MB peak RSS"
	for b in "${!bins[@]}"; do
		awk -v b="${bins[$b]}" -v cw="$w" -v cc="$c" -v w="$(printf '%s\n' ${wall[$b,2]} | median)" -v c="$(printf '%s\n' ${cpu[$b,2]} | median)" 'BEGIN {
			printf "%s at GOMAXPROCS=2: %.1fx less CPU, %.1fx less wall time\n", b, cc / c, cw / w
		}'
	done
}
[ -z "${CCT:-}" ] || against cct claude-code-transcripts
[ -z "${CCL:-}" ] || against ccl claude-code-log
if [ -n "${PROFILE:-}" ]; then
	d=$sites/site-profile
	rm -rf "$d"
	"${bins[-1]}" build --quiet -s "$work" --config "$config" --contentDir "$corpus" \
		--cacheDir "$d/cache" -d "$d/public" --profile-cpu "$PROFILE"
	echo
	go tool pprof -top -nodecount=35 "${bins[-1]}" "$PROFILE" 2>/dev/null | sed -n '1,45p'
fi
find "$sites" -maxdepth 1 -name 'site-*' ! -name 'site-*-2-1' -exec rm -rf {} +
