"""How common a word is in the languages memories are written in (English, German, Spanish,
French, Portuguese), as a Zipf frequency: log10 of its occurrences per billion words ("use"
5.8, "database" 4.3, "zebra" 3.4; 0.0 for a word rare in every one of them).

The numbers come from the wordfreq package's data, taken once by
scripts/gen_word_frequencies.py and shipped beside this module (data/word_frequencies.tsv, CC
BY-SA 4.0, see data/NOTICE): importing wordfreq and loading its lists would cost more than a
whole cold search. A word's value is its highest frequency among those languages, so a word
common in the query's language weighs little and a word foreign to English is not taken for a
rare one. The table is read on first use (a file read, no parsing: each lookup is a binary
search over its bytes) and kept for the process; reading a file shipped with the package is
the only I/O here, and it is the same on every machine.
"""

from __future__ import annotations

from pathlib import Path

# The table holds every word at least this common in one of the languages (the script's
# MIN_ZIPF); a word not in it is rarer than this in all of them.
MIN_ZIPF = 3.0
_TABLE = Path(__file__).parent / "data" / "word_frequencies.tsv"
_data: bytes | None = None


def _table() -> bytes:
    global _data
    if _data is None:
        _data = _TABLE.read_bytes()
    return _data


def zipf(word: str) -> float:
    """The word's highest Zipf frequency in the table's languages (lower case expected), or 0.0
    when it is rarer than MIN_ZIPF in every one of them."""
    data = _table()
    key = word.encode("utf-8")
    # The lines between `low` and `high` are the candidates; `low` always starts a line (the
    # table opens with a newline, so the byte before every line is one).
    low, high = 1, len(data)
    while low < high:
        start = data.rfind(b"\n", low - 1, (low + high) // 2) + 1  # the line around the middle
        end = data.find(b"\n", start)
        tab = data.find(b"\t", start, end)
        found = data[start:tab]
        if found == key:
            return int(data[tab + 1 : end]) / 10.0
        if found < key:
            low = end + 1
        else:
            high = start
    return 0.0
