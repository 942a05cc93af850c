"""Rows by physical address: what a handle has read once, it does not read again.

A Lance row address is `fragment id << 32 | row offset`. The row at an address never changes:
fragments are immutable (an update or a delete writes a new fragment and a deletion file;
compaction writes new fragments under new ids), and a table never reuses a fragment id. So a
read that finds its rows' addresses through an index at the current version (deleted rows are
not returned) may take the rows themselves from here. On S3 the rows are what a search reads
from data files: a warm handle (the daemon, the MCP server, the Explorer) answers repeated and
related searches without those GETs, and freshness is untouched, because which addresses
match is always asked of the newest version.

Entries hold the row without its vector and whether it has one (unknown until a read asks).
Least recently used entries go first once the texts held pass `max_bytes`. One handle serves
several threads in the daemon (socket requests, the embed and maintain loops): a lock guards
every change.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from graphit_cli.core.models import Memory

MAX_BYTES = 48 * 1024 * 1024
_ROW_OVERHEAD = 600  # bytes a row costs beyond its texts (ids, dates, Python objects)


@dataclass(frozen=True)
class CachedRow:
    row: Memory
    has_vector: bool | None  # None: not read yet


class RowCache:
    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._rows: OrderedDict[int, CachedRow] = OrderedDict()
        self._sizes: dict[int, int] = {}
        self._bytes = 0
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, address: int, *, vector_flag: bool = False) -> CachedRow | None:
        """The row at `address`, if held (and its vector flag is known when `vector_flag`)."""
        with self._lock:
            found = self._rows.get(address)
            if found is None or (vector_flag and found.has_vector is None):
                self.misses += 1
                return None
            self._rows.move_to_end(address)
            self.hits += 1
            return found

    def put(self, address: int, entry: CachedRow) -> None:
        row = entry.row
        size = _ROW_OVERHEAD + len(row.title) + len(row.body) + sum(len(t) for t in row.tags)
        with self._lock:
            if address in self._rows:
                self._bytes -= self._sizes[address]
            self._rows[address] = entry
            self._rows.move_to_end(address)
            self._sizes[address] = size
            self._bytes += size
            while self._bytes > self.max_bytes and len(self._rows) > 1:
                old, _ = self._rows.popitem(last=False)
                self._bytes -= self._sizes.pop(old)
