"""Cells of a table under a credential's column: a markdown table's (`| service | user |
password |`) and an SQL insert's (`INSERT INTO t (name, api_key) VALUES ('x', '...')`);
and values that come in pairs, an id and its secret: two cells side by side under no header
that names them (`| amadeus prod | <client id> | <client secret> |`), an AWS access key id
and the 40 characters after it. core/secrets.py judges each cell as a value named by its
header, and a pair's second as a generated value. Pure: standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from graphit_cli.core.secret_words import typed_code

# A markdown table's row: its cells, under a header row (`| service | user | password |`).
TABLE_ROW = re.compile(r"(?m)^[ \t]*\|.*\|[ \t]*$")
# An SQL insert's columns and values (`INSERT INTO t (name, api_key) VALUES ('x', '...')`).
SQL_INSERT = re.compile(
    r"(?i:insert\s+into)\s+[\w.\"`]+\s*\((?P<columns>[^)]*)\)\s*(?i:values)\s*\("
)
_SQL_VALUE = re.compile(r"\s*(?:'(?P<quoted>[^'\n]*)'|(?P<bare>[^,)\s]+))\s*[,)]")


# An AWS access key id, then on its line or the next its secret: 40 characters of base64.
AWS_PAIR = re.compile(
    r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b[^\n]{0,80}?(?:\n[^\n]{0,80}?)??"
    r"(?<![A-Za-z0-9/+=])(?P<value>(?=[^\n]*?[a-z])[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)
# A header naming what is not a secret: `| sha256 |`, `| key id |`, `| public key |`.
_NOT_SECRET_HEADER = re.compile(
    r"(?i)hash|sha|md5|digest|checksum|fingerprint|thumbprint|\bids?\b|_id\b|uuid|guid|serial"
    r"|commit|public|\bpub\b|etag|version|build|order|ticket|record|account|number|no\."
)

# An id beside its secret is one run (`Q7xK...`, not `housing-pt2` or `npe03__Recurring__c`).
_ID = re.compile(r"[A-Za-z0-9+/=]{12,}")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


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


# A header that names a credential (`password`, `token`, `api key`); one that names a code a
# person types (`PIN`, `Code`, `eng code`), not a code of something else (`Error code`).
_CREDENTIAL_HEADER = re.compile(r"(?i)pass|secret|token|\bkey\b|credential")
_CODE_HEADER = re.compile(
    r"(?i)^(?!.*(?:error|status|country|zip|post|area|product|promo|discount|voucher|iata|swift"
    r"|bank|sort|tax|reason|response|exit|http|mcc|postal|region|item|article|part))"
    r".*(?:\bpin\b|\bpuk\d?\b|code\b|\bkod\b|c[oó]digo|codice|combination|passcode)"
)
_CODE_CELL = re.compile(r"\d{4,8}[#*]?")


def code_cells(text: str) -> list[tuple[int, int, str]]:
    """(start, end, header) of each cell of 4 to 8 digits under a header that names a PIN or a
    code (`| Haus Enzian | 1910# |` under `| Gebäude | Code |`)."""
    return [
        cell
        for cell in table_cells(text, _CODE_HEADER)
        if _CODE_CELL.fullmatch(text[cell[0] : cell[1]])
        and typed_code(text[cell[0] : cell[1]].rstrip("#*"))  # not `1111`, `1234`
    ]


def table_cells(
    text: str, names: re.Pattern[str] = _CREDENTIAL_HEADER
) -> list[tuple[int, int, str]]:
    """(start, end, header) of each cell of a markdown table under a header `names` matches
    (by default one that names a credential: `password`, `token`, `api key`)."""
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
            if cell and names.search(header):
                offset = text.index(cell, start, end)
                cells.append((offset, offset + len(cell), header))
    return cells


def table_pairs(text: str, generated: Callable[[str], bool]) -> list[tuple[int, int]]:
    """(start, end) of each cell that follows a `generated` one in a markdown table's row, both
    under no header or under headers that do not name them as hashes, ids or public keys: an id
    and its secret, as a row of credentials holds them. A first row holding a generated cell is
    a row of data, not a header."""
    pairs: list[tuple[int, int]] = []
    headers: list[str] | None = None
    last = -2
    for row in TABLE_ROW.finditer(text):
        if text.count("\n", last + 1, row.start()) > 0:
            headers = None  # a new table
        last = row.end()
        parts = [
            (m.start() + row.start(), m.group().strip())
            for m in re.finditer(r"(?<=\|)[^|\n]*(?=\|)", row.group())
        ]
        cells = [cell.strip("`") for _, cell in parts]
        if all(set(cell) <= set(":- ") for cell in cells):
            continue  # the separator row
        if headers is None and not any(map(generated, cells)):
            headers = cells
            continue
        heads = headers or []
        for i in range(1, len(parts)):
            head = heads[i] if i < len(heads) else ""
            if _NOT_SECRET_HEADER.search(head) or len(cells[i]) < 16:
                continue
            first, second = cells[i - 1], cells[i]
            if _ID.fullmatch(first) and not _UUID.fullmatch(second) and generated(first):
                if not generated(second):
                    continue
                start = text.index(cells[i], parts[i][0])
                pairs.append((start, start + len(cells[i])))
    return pairs
