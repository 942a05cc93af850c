"""A writer process for the reliability campaign (tests/test_reliability.py), run as a script.

    reliability_writer.py SEED COUNT HOT_IDS...

Writes COUNT times (or until killed): new memories, updates of memories it created, and
updates of the shared HOT_IDS, in an order drawn from SEED. Each write is printed as one JSON
line (flushed) only after `upsert` returned, so the test knows exactly which writes were
reported as durable: {"op", "id", "revision", "title", "body"}. The table comes from the
environment, as for the CLI (GRAPHIT_HOME, GRAPHIT_PROJECT_ID, GRAPHIT_PROVIDER...).
A GraphitError prints `ERROR <message>` on stderr and exits with its exit code.
"""

from __future__ import annotations

import json
import random
import sys

from graphit_cli.access.providers import resolve_scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.errors import GraphitError
from graphit_cli.opening import open_service


def main(argv: list[str]) -> int:
    seed, count, hot_ids = int(argv[0]), int(argv[1]), argv[2:]
    rng = random.Random(seed)
    service = open_service(resolve_scope("project"))
    mine: list[str] = []
    try:
        for n in range(count):
            roll = rng.random()
            if hot_ids and roll < 0.4:
                op, memory_id, title = "hot", rng.choice(hot_ids), None
            elif mine and roll < 0.6:
                op, memory_id, title = "update", rng.choice(mine), None
            else:
                op, memory_id, title = "create", None, f"note {seed}-{n}"
            body = f"{op} by writer {seed}, write {n}"
            done = service.upsert(MemoryDraft(id=memory_id, title=title, body=body)).memory
            if op == "create":
                mine.append(done.id)
            line = {
                "op": op,
                "id": done.id,
                "revision": done.revision,
                "title": done.title,
                "body": done.body,
            }
            print(json.dumps(line), flush=True)
    except GraphitError as exc:
        print(f"ERROR {exc.message}", file=sys.stderr, flush=True)
        return int(exc.exit_code)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
