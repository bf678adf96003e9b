#!/usr/bin/env bash
# Builds the same generated Claude Code sessions with transcriptsite and
# with Hugo, in turns, and prints a Markdown table: pages, the median
# seconds of RUNS cold builds, pages/s, peak RSS, and Hugo's time over
# transcriptsite's. Hugo's pages are the sessions' Markdown exports, so both
# render the same sessions and highlight with chroma and CSS classes. They
# highlight nearly the same code: the export fences a command as bash, a
# written file in its language and an edit as a diff, where the page
# highlights an edit in its file's language (costlier than diff's lexer).
# Below the table, the fenced blocks of the Markdown and what each tool
# highlighted are counted by language.
#
#   scripts/hugo.sh                    # 1,000 sessions, 3 runs each
#   N=100 RUNS=1 scripts/hugo.sh       # a quick look
#   WORK=/tmp/tshugo scripts/hugo.sh   # keep corpus and sites there
#   HUGO=~/bin/hugo scripts/hugo.sh    # this Hugo; default: hugo on PATH,
#                                      # then /tmp/hugobin/hugo, then
#                                      # v0.165.0 installed into $WORK/bin
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-1000}
runs=${RUNS:-3}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work/bin"
go build -o "$work/bin/transcriptsite" ./cmd/transcriptsite
go build -o "$work/bin/gensessions" ./cmd/gensessions
ts=$work/bin/transcriptsite

hugo=${HUGO:-}
if [ -z "$hugo" ]; then
	if command -v hugo >/dev/null; then
		hugo=$(command -v hugo)
	elif [ -x /tmp/hugobin/hugo ]; then
		hugo=/tmp/hugobin/hugo
	else
		# v0.165.0 is the newest Hugo that builds with Go 1.26.
		[ -x "$work/bin/hugo" ] || GOBIN=$work/bin CGO_ENABLED=0 go install github.com/gohugoio/hugo@v0.165.0
		hugo=$work/bin/hugo
	fi
fi

corpus=$work/corpus-$n
[ -d "$corpus" ] || "$work/bin/gensessions" -out "$corpus" -n "$n" -seed 1 >/dev/null

# The Markdown comes from a transcriptsite build (not timed): its
# session.md exports are redacted as its pages are.
tsite=$work/ts-$n
rm -rf "$tsite"
mkdir -p "$tsite"
printf 'title: Benchmark\n' >"$tsite/config.yaml"
"$ts" build --quiet -s "$tsite" --contentDir "$corpus" --cacheDir "$tsite/export-cache" -d "$tsite/export"

hsite=$work/hugo-$n
rm -rf "$hsite"
mkdir -p "$hsite/content/sessions" "$hsite/layouts/_default" "$hsite/static"
# Each export becomes content/sessions/<n>.md with the export's title as
# its only front matter: Hugo would read the other fields as params, which
# no layout here shows.
find "$tsite/export/sessions" -name session.md | sort >"$hsite/exports.txt"
[ -s "$hsite/exports.txt" ] || { echo "hugo.sh: the build wrote no session.md to convert" >&2; exit 1; }
awk -v dir="$hsite/content/sessions" '{
	out = dir "/" NR ".md"; fm = 0; line = 0
	while ((getline l < $0) > 0) {
		if (++line == 1 && l == "---") { fm = 1; print l > out; continue }
		if (fm) {
			if (l == "---") { fm = 0; print l > out }
			else if (l ~ /^title: /) print l > out
			continue
		}
		print l > out
	}
	close($0); close(out)
}' "$hsite/exports.txt"
cat >"$hsite/hugo.toml" <<'EOF'
baseURL = "https://example.org/"
title = "Benchmark"
# Only the home, the section and the session pages, as transcriptsite has no
# taxonomies; its feed and sitemap are small beside its pages.
disableKinds = ["taxonomy", "term", "rss", "sitemap", "robotsTXT"]
[markup.highlight]
  noClasses = false
[markup.goldmark.renderer]
  unsafe = false
EOF
cat >"$hsite/layouts/_default/baseof.html" <<'EOF'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title><link rel="stylesheet" href="/chroma.css"></head>
<body>{{ block "main" . }}{{ end }}</body></html>
EOF
cat >"$hsite/layouts/_default/single.html" <<'EOF'
{{ define "main" }}<main>{{ .Content }}</main>{{ end }}
EOF
cat >"$hsite/layouts/_default/list.html" <<'EOF'
{{ define "main" }}<main><h1>{{ .Title }}</h1><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></main>{{ end }}
EOF
cat >"$hsite/layouts/index.html" <<'EOF'
{{ define "main" }}<main><h1>{{ .Site.Title }}</h1><ul>{{ range .Site.RegularPages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul></main>{{ end }}
EOF
"$hugo" gen chromastyles --style=github >"$hsite/static/chroma.css"

# timed CMD...: seconds and peak RSS in KB. The disk is flushed first, so
# that the writes of one build do not slow the next.
timed() {
	sync
	{ /usr/bin/time -f '%e %M' "$@" >/dev/null; } 2>&1 | tail -1
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

# In turns, so that other work on the machine slows both alike. Nothing is
# deleted until the end: the file system frees what is deleted while the
# next build runs, which would slow it. Hugo's public is moved aside
# instead, so each Hugo build starts with none.
tsec=() trss=() hsec=() hrss=()
for i in $(seq "$runs"); do
	read -r s kb < <(timed "$ts" build --quiet -s "$tsite" --contentDir "$corpus" \
		--cacheDir "$tsite/cache-$i" -d "$tsite/public-$i")
	tsec+=("$s") trss+=("$kb")
	[ ! -d "$hsite/public" ] || mv "$hsite/public" "$hsite/old-public-$i"
	rm -rf "$hsite/resources"
	read -r s kb < <(timed "$hugo" --quiet -s "$hsite" --cacheDir "$hsite/hugo-cache")
	hsec+=("$s") hrss+=("$kb")
done
echo "transcriptsite ${tsec[*]} s; hugo ${hsec[*]} s" >&2

tpages=$(find "$tsite/public-1" -name '*.html' | wc -l)
hpages=$(find "$hsite/public" -name '*.html' | wc -l)
tc=$(printf '%s\n' "${tsec[@]}" | median)
tk=$(printf '%s\n' "${trss[@]}" | median)
hc=$(printf '%s\n' "${hsec[@]}" | median)
hk=$(printf '%s\n' "${hrss[@]}" | median)

echo "transcriptsite $(git rev-parse --short HEAD), $("$hugo" version | cut -d' ' -f1-2), $(nproc) cores, $(date -u +%F)"
echo "$n sessions, $(du -sb "$corpus" | cut -f1 | awk '{printf "%.0f", $1 / 1e6}') MB of JSONL; Hugo content $(du -sb "$hsite/content" | cut -f1 | awk '{printf "%.0f", $1 / 1e6}') MB of Markdown"
echo
echo "| tool | pages | median s | pages/s | peak RSS MB |"
echo "|---|---:|---:|---:|---:|"
awk -v p="$tpages" -v c="$tc" -v k="$tk" 'BEGIN { printf "| transcriptsite | %d | %.2f | %.0f | %.0f |\n", p, c, p / c, k / 1024 }'
awk -v p="$hpages" -v c="$hc" -v k="$hk" 'BEGIN { printf "| hugo | %d | %.2f | %.0f | %.0f |\n", p, c, p / c, k / 1024 }'
echo
awk -v t="$tc" -v h="$hc" 'BEGIN { printf "Hugo time / transcriptsite time: %.2f\n", h / t }'

# tally: lines in, "line count" out, the most frequent first.
tally() { sort | uniq -c | sort -s -k1,1nr | awk '{printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1} END {print ""}'; }

# The fenced blocks of the Hugo content, by language. A
# fence opens with 3 or more backticks or tildes and closes with at least
# as many of the same, as CommonMark says (no {3,}: mawk before 2020-07
# has no intervals).
find "$hsite/content/sessions" -name '*.md' -exec cat {} + | awk '
	!open && match($0, /^ ? ? ?(````*|~~~~*)/) {
		open = substr($0, RSTART, RLENGTH); sub(/^ +/, "", open)
		lang = substr($0, RSTART + RLENGTH); sub(/^[ \t]+/, "", lang); sub(/[ \t].*/, "", lang)
		print lang == "" ? "no-language" : lang
		next
	}
	open && match($0, /^ ? ? ?(````*|~~~~*)[ \t]*$/) {
		f = substr($0, RSTART, RLENGTH); sub(/^ +/, "", f); sub(/[ \t]+$/, "", f)
		if (substr(f, 1, 1) == substr(open, 1, 1) && length(f) >= length(open)) open = ""
	}' >"$hsite/fences.txt"
echo
echo "Fenced code blocks in the Hugo content: $(wc -l <"$hsite/fences.txt") ($(tally <"$hsite/fences.txt"))"
# What each highlighted on the session pages. Hugo leaves a fence with no
# language plain. transcriptsite highlights a shell call's command, code
# in text, and JSON inputs of other tools (data-lang), and shows files
# and diffs as rows, highlighted by the file's extension (reads are left
# plain); the export fences every tool input as JSON and every output with
# no language.
echo "Highlighted by Hugo: $( (find "$hsite/public/sessions" -name index.html -exec cat {} + |
	grep -o '<code class="language-[^"]*"' || true) | sed 's/.*language-//; s/"$//' | tally)"
echo "Highlighted by transcriptsite: $( (find "$tsite/public-1/sessions" -name index.html -exec cat {} + |
	grep -o '<div class="highlight" data-lang="[^"]*"\|<pre class="chroma rows">' || true) |
	sed 's/.*data-lang="//; s/"$//; s/<pre class="chroma rows">/file-rows/' | tally)"

rm -rf "$tsite"/cache-* "$hsite"/old-public-*
for i in $(seq 2 "$runs"); do rm -rf "$tsite/public-$i"; done
