"""A writer process for tests/test_consistent_reads.py and benchmarks/consistent_reads.py.

    ack_writer.py            (each line on stdin: a title)

Each title is written as a new memory in the project scope (the table comes from the
environment, as for the CLI), and its id printed (flushed) only once `upsert` returned: the
caller knows the write was acknowledged. An empty line or the end of stdin ends it.
"""

from __future__ import annotations

import sys

from graphit_cli.access.providers import resolve_scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.opening import open_service


def main() -> int:
    service = open_service(resolve_scope("project"), embedder=lambda: None)
    for line in sys.stdin:
        title = line.strip()
        if not title:
            break
        done = service.upsert(MemoryDraft(title=title, body=f"{title}, written by another process"))
        print(done.memory.id, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
