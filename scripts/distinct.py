#!/usr/bin/env python3
"""Makes the text of one copy of a Claude Code session distinct from the
other copies' (scripts/realx20.sh): reads JSONL on stdin, writes it on
stdout.

    distinct.py K MODE <in.jsonl >out.jsonl

K (1-20) is the copy. MODE is
  words       every word of the text the agent and the user wrote, of
              code, file contents and tool output, except the keywords of
              common languages, file extensions, fence languages and tag
              names (<command-name>, <div>): what a user's first build of
              their own archive meets, where every session is new text
  the-return  only the words "the" and "return"

A word is respelt in place: its vowels turn K-1 places along "aeiou" and
its consonants (K-1)/5 places along the others, case kept, so that copy 1
is the original, each of the 20 spells a word of both kinds its own way,
and the text keeps its shape (lengths, lines, indentation, markup, JSON).
Only the fields that hold such text change; ids, types, tool names, paths
(a file's lexer is chosen by its name), timestamps and image data stay,
so that every copy reads as the same sessions in the same projects.
A line that is not JSON is written as it is.
"""
import json
import re
import sys

TEXT_KEYS = {
    "content", "text", "thinking", "originalFile", "originalFileContents",
    "lines", "old_string", "new_string", "oldString", "newString", "stdout",
    "stderr", "prompt", "plan", "command", "activeForm", "toolUseResult",
    "description", "message", "question", "lastPrompt", "summary", "subject",
    "label", "header",
}

# Keywords of the languages the corpus holds (Python, JS/TS, Go, Rust,
# shell, SQL): a user's own code spells them the same in every session.
KEYWORDS = set("""
and as assert async await break case catch class const continue crate def
default defer del delete do done elif else enum esac except export extends
false fi finally fn for from func function global go goto if impl import in
interface is lambda let loop map match mod mut new nil none None not null
of or package pass pub raise range return select self Self static struct
super switch then this throw true True False try type typeof undefined use
var void where while with yield echo local readonly unset set shift
SELECT FROM WHERE INSERT UPDATE DELETE CREATE TABLE INTO VALUES AND OR NOT
int str bool float string byte rune error print len dict list tuple
""".split())

# File extensions and fence languages: a fence's language and a file name
# choose the lexer.
NAMES = set("""
py js ts tsx jsx mjs cjs go rs md json jsonl yaml yml toml html htm css scss
sass sh bash zsh txt lock cfg ini xml sql java rb c h cpp hpp vue svelte log
csv python javascript typescript rust shell console diff text markdown
dockerfile makefile Makefile Dockerfile gitignore env mod sum png jpg svg
""".split())

VOWELS = "aeiou"
CONSONANTS = "bcdfghjklmnpqrstvwxyz"


def table(k):
    v, c = (k - 1) % 5, (k - 1) // 5
    src = VOWELS + CONSONANTS
    dst = VOWELS[v:] + VOWELS[:v] + CONSONANTS[c:] + CONSONANTS[:c]
    return str.maketrans(src + src.upper(), dst + dst.upper())


WORD = re.compile(r"(</?)?([A-Za-z][A-Za-z-]*)")


def respell(k, mode):
    tr = table(k)

    def one(m):
        tag, w = m.group(1), m.group(2)
        if tag:
            return m.group(0)
        if mode == "the-return":
            return w.translate(tr) if w in ("the", "return") else w
        if w in KEYWORDS or w in NAMES:
            return w
        return w.translate(tr)

    return lambda s: WORD.sub(one, s)


def walk(o, key, f):
    if isinstance(o, dict):
        return {k: walk(v, k, f) for k, v in o.items()}
    if isinstance(o, list):
        return [walk(v, key, f) for v in o]
    if isinstance(o, str) and key in TEXT_KEYS:
        return f(o)
    return o


def main():
    k, mode = int(sys.argv[1]), sys.argv[2]
    f = respell(k, mode)
    for line in sys.stdin:
        try:
            rec = json.loads(line)
        except ValueError:
            sys.stdout.write(line)
            continue
        sys.stdout.write(json.dumps(walk(rec, None, f), ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
