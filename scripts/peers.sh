#!/usr/bin/env bash
# Installs claude-code-transcripts (the peer scripts/realx20.sh runs with
# CCT) from source, where PyPI cannot be reached: its repository and those
# of the dependencies its `all` command needs, as mirrored bare git
# directories (the agent tool `fetch` mirrors github:OWNER/NAME to
# /work/.mirror/OWNER+NAME/repo), unpacked into DIR and put on PYTHONPATH.
# It prints the CCT value to give scripts/realx20.sh.
#
#   scripts/peers.sh [DIR]          # default /tmp/peers
#   CCT="$(scripts/peers.sh)" scripts/realx20.sh
#
# Mirrors it needs: simonw/claude-code-transcripts, pallets/click,
# click-contrib/click-default-group, pallets/jinja, pallets/markupsafe
# (its pure-Python fallback: no C speedups), Python-Markdown/markdown.
# httpx and questionary, which the tool imports for its web and
# interactive commands only, are empty modules here. Markdown finds its
# extensions ("fenced_code", "tables") by entry points, so a dist-info
# folder names them, from its pyproject.toml.
#
# claude-code-log (daaain/claude-code-log) needs pydantic 2, whose core is
# compiled Rust, and mistune 3: neither can be built here, and Debian 12's
# python3-pydantic (1.10) and python3-mistune (2.0) are too old, so it is
# not run.
set -euo pipefail
dir=${1:-/tmp/peers}
mirror=${MIRROR:-/work/.mirror}
mkdir -p "$dir"
unpack() { # OWNER+NAME: the repository's HEAD, into dir/NAME
	local to=$dir/${1#*+}
	if [ ! -d "$to" ]; then
		mkdir -p "$to"
		git --git-dir="$mirror/$1/repo" archive HEAD | tar -x -C "$to"
	fi
	echo "$to"
}
cct=$(unpack simonw+claude-code-transcripts)
click=$(unpack pallets+click)
group=$(unpack click-contrib+click-default-group)
jinja=$(unpack pallets+jinja)
safe=$(unpack pallets+markupsafe)
md=$(unpack Python-Markdown+markdown)

stubs=$dir/stubs
mkdir -p "$stubs"
: >"$stubs/httpx.py"
: >"$stubs/questionary.py"
# Markdown's extensions, as its installed package would declare them.
version=$(sed -nE 's/^__version_info__ = \(([0-9]+), ([0-9]+), ([0-9]+).*/\1.\2.\3/p' "$md/markdown/__meta__.py")
info=$stubs/Markdown-${version:-3}.dist-info
mkdir -p "$info"
printf 'Metadata-Version: 2.1\nName: Markdown\nVersion: %s\n' "${version:-3}" >"$info/METADATA"
{
	echo '[markdown.extensions]'
	sed -n "/entry-points.'markdown.extensions'/,/^\[/p" "$md/pyproject.toml" | grep -E "^[a-z_]+ = " | tr -d "'"
} >"$info/entry_points.txt"

path=$cct/src:$click/src:$group:$jinja/src:$safe/src:$md:$stubs
# The value for CCT: the command, with its PYTHONPATH.
echo "PYTHONPATH=$path python3 -c 'from claude_code_transcripts import main; main()'"
