"""Cells of a table under a credential's column: a markdown table's (`| service | user |
password |`) and an SQL insert's (`INSERT INTO t (name, api_key) VALUES ('x', '...')`).
core/secrets.py judges each cell as a value named by its header. Pure: standard library only.
"""

from __future__ import annotations

import re

# A markdown table's row: its cells, under a header row (`| service | user | password |`).
TABLE_ROW = re.compile(r"(?m)^[ \t]*\|.*\|[ \t]*$")
# An SQL insert's columns and values (`INSERT INTO t (name, api_key) VALUES ('x', '...')`).
SQL_INSERT = re.compile(
    r"(?i:insert\s+into)\s+[\w.\"`]+\s*\((?P<columns>[^)]*)\)\s*(?i:values)\s*\("
)
_SQL_VALUE = re.compile(r"\s*(?:'(?P<quoted>[^'\n]*)'|(?P<bare>[^,)\s]+))\s*[,)]")


def sql_cells(text: str) -> list[tuple[int, int, str]]:
    """(start, end, column) of each quoted value of an SQL insert under a column that names a
    credential (`api_key`, `token`, `password`)."""
    cells: list[tuple[int, int, str]] = []
    for insert in SQL_INSERT.finditer(text):
        columns = [c.strip(' "`') for c in insert["columns"].split(",")]
        at = insert.end()
        for column in columns:
            value = _SQL_VALUE.match(text, at)
            if value is None:
                break
            if value["quoted"] and re.search(r"(?i)pass|secret|token|key", column):
                cells.append((value.start("quoted"), value.end("quoted"), column))
            at = value.end()
    return cells


def table_cells(text: str) -> list[tuple[int, int, str]]:
    """(start, end, header) of each cell of a markdown table under a header that names a
    credential (`password`, `token`, `api key`)."""
    cells: list[tuple[int, int, str]] = []
    headers: list[str] = []
    for row in TABLE_ROW.finditer(text):
        parts = [
            (m.start() + row.start(), m.end() + row.start(), m.group().strip())
            for m in re.finditer(r"(?<=\|)[^|\n]*(?=\|)", row.group())
        ]
        if all(set(cell) <= set(":- ") for _, _, cell in parts):
            continue  # the separator row
        if not headers:
            headers = [cell for _, _, cell in parts]
            continue
        for (start, end, cell), header in zip(parts, headers, strict=False):
            if cell and re.search(r"(?i)pass|secret|token|\bkey\b|credential", header):
                offset = text.index(cell, start, end)
                cells.append((offset, offset + len(cell), header))
    return cells
