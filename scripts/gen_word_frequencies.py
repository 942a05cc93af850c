"""Generate graphit's table of common words from the wordfreq package's data.

    python scripts/gen_word_frequencies.py          # (re)write the table
    python scripts/gen_word_frequencies.py --check  # exit 1, writing nothing, if it is stale

Search weighs a query's words by how common they are in the language (core/commonness.py).
wordfreq answers that, but importing it and loading one language's list costs ~0.2 s each
(docs/decisions/0010-a-table-of-word-frequencies.md), more than a whole cold search may take, so
the few numbers search needs are taken from it here, once, and shipped as package data:
graphit_cli/core/data/word_frequencies.tsv, one `word<TAB>zipf x 10` line per word, sorted by
the word's UTF-8 bytes (a lookup is a binary search over the file's bytes, nothing parsed).

A word's value is its highest Zipf frequency (log10 of its frequency per billion words) among
LANGUAGES, the languages memories are expected in: a word common in any of them weighs little
whatever the query's language, and a word rare in all of them is not in the table. Only whole
words (what search's `\\w+` tokenizer yields) with a letter and no digit, at least MIN_ZIPF, are
kept.

wordfreq is by Robyn Speer (code Apache-2.0, data CC BY-SA 4.0); the table is derived from its
data and carries that licence (graphit_cli/core/data/NOTICE). The output is a pure function of
wordfreq's version and the constants below, so tests/test_commonness.py can check it is fresh.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "graphit_cli" / "core" / "data" / "word_frequencies.tsv"
# The languages memories and questions are expected in (the default model is multilingual).
LANGUAGES = ("en", "de", "es", "fr", "pt")
# Rarer words are left out: below commonness.RARE_ZIPF a word keeps its whole weight anyway.
MIN_ZIPF = 3.0
_WORD = re.compile(r"\w+\Z")


def _wordlike(word: str) -> bool:
    """A word search could weigh: letters in it, no digit (wordfreq folds digits together)."""
    return any(c.isalpha() for c in word) and not any(c.isdigit() for c in word)


def table(languages: tuple[str, ...] = LANGUAGES, min_zipf: float = MIN_ZIPF) -> bytes:
    """The table's bytes: a leading newline, then `word<TAB>zipf x 10` lines by UTF-8 bytes."""
    import wordfreq

    best: dict[str, int] = {}
    for language in languages:
        for word, frequency in wordfreq.get_frequency_dict(language, wordlist="best").items():
            zipf = round((math.log10(frequency) + 9.0) * 10)
            if zipf < min_zipf * 10 or not _WORD.match(word) or not _wordlike(word):
                continue
            best[word] = max(best.get(word, 0), zipf)
    lines = sorted(f"{word}\t{zipf}".encode() for word, zipf in best.items())
    return b"\n" + b"\n".join(lines) + b"\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="wordfreq codes")
    parser.add_argument("--min-zipf", type=float, default=MIN_ZIPF)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    data = table(tuple(args.languages.split(",")), args.min_zipf)
    if args.check:
        stale = not args.output.exists() or args.output.read_bytes() != data
        if stale:
            print(f"{args.output} is stale: run scripts/gen_word_frequencies.py", file=sys.stderr)
        return 1 if stale else 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(data)
    words = data.count(b"\n") - 1
    print(f"{args.output}: {words} words, {len(data)} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
