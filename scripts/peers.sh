#!/usr/bin/env bash
# Installs the peers scripts/realx20.sh runs beside our builds from source,
# where PyPI cannot be reached: claude-code-transcripts (CCT) and
# claude-code-log (CCL). Their repositories and those of most of their
# dependencies are mirrored bare git directories (the agent tool `fetch`
# mirrors github:OWNER/NAME to /work/.mirror/OWNER+NAME/repo), unpacked
# into DIR and put on PYTHONPATH. It prints the command to give
# scripts/realx20.sh as CCT, or with --ccl as CCL; either way it sets up
# both.
#
#   scripts/peers.sh [--ccl] [DIR]          # default /tmp/peers
#   CCT="$(scripts/peers.sh)" CCL="$(scripts/peers.sh --ccl)" scripts/realx20.sh
#
# claude-code-transcripts needs the mirrors simonw/claude-code-transcripts,
# pallets/click, click-contrib/click-default-group, pallets/jinja,
# pallets/markupsafe (its pure-Python fallback: no C speedups),
# Python-Markdown/markdown. httpx and questionary, which the tool imports
# for its web and interactive commands only, are empty modules here.
# Markdown finds its extensions ("fenced_code", "tables") by entry points,
# so a dist-info folder names them, from its pyproject.toml.
#
# claude-code-log runs on the python3 at hand (3.11 is enough, though its
# pyproject asks for 3.12: its code has no 3.12 syntax), whose own
# site-packages must hold pydantic 2 (a compiled core: it cannot be built
# here), Jinja2, MarkupSafe, click, regex and python-dateutil; the script
# checks. The rest is pure Python: the package claude_code_log from the
# mirror daaain/claude-code-log (its HEAD; only that folder, as the mirror
# lacks some large blobs elsewhere), mistune 3 from the mirror
# lepture/mistune at tag v3.3.4 (Debian 12 has 2.0), and dateparser, pytz,
# tzlocal and pytz-deprecation-shim from Debian 12's packages
# (python3-dateparser 1.1.6, python3-tz 2022.7.1, python3-tzlocal 4.2,
# python3-pytz-deprecation-shim 0.1.0), fetched with `apt-get download`
# and unpacked into DIR with `dpkg -x`, not installed.
set -euo pipefail
want=cct
if [ "${1:-}" = --ccl ]; then
	want=ccl
	shift
fi
dir=${1:-/tmp/peers}
mirror=${MIRROR:-/work/.mirror}
mkdir -p "$dir"
unpack() { # OWNER+NAME [REF [FOLDER]]: the repository at REF (HEAD), or only its FOLDER, into dir/NAME
	local to=$dir/${1#*+} ref=${2:-HEAD} sub=${3:-}
	if [ ! -d "$to" ]; then
		mkdir -p "$to.part"
		if [ -n "$sub" ]; then
			git --git-dir="$mirror/$1/repo" archive --prefix="$sub/" "$ref:$sub" | tar -x -C "$to.part"
		else
			git --git-dir="$mirror/$1/repo" archive "$ref" | tar -x -C "$to.part"
		fi
		mv "$to.part" "$to"
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

ccl=$(unpack daaain+claude-code-log HEAD claude_code_log)
mistune=$(unpack lepture+mistune v3.3.4)
debs=$dir/debs
if [ ! -d "$debs" ]; then
	mkdir -p "$debs.part"
	(cd "$debs.part" && apt-get download python3-dateparser python3-tz python3-tzlocal python3-pytz-deprecation-shim >&2)
	for f in "$debs.part"/*.deb; do dpkg -x "$f" "$debs.part"; done
	mv "$debs.part" "$debs"
fi
if ! python3 -c 'import pydantic, pydantic_core, jinja2, markupsafe, click, regex, dateutil; assert pydantic.VERSION[0] == "2"'; then
	echo "peers.sh: claude-code-log needs pydantic 2, Jinja2, MarkupSafe, click, regex and python-dateutil in $(command -v python3)" >&2
	[ $want = cct ] || exit 1
fi

# The values for CCT and CCL: each command, with its PYTHONPATH.
if [ $want = cct ]; then
	path=$cct/src:$click/src:$group:$jinja/src:$safe/src:$md:$stubs
	echo "PYTHONPATH=$path python3 -c 'from claude_code_transcripts import main; main()'"
else
	path=$ccl:$mistune/src:$debs/usr/lib/python3/dist-packages
	echo "PYTHONPATH=$path python3 -c 'from claude_code_log.cli import main; main()'"
fi
