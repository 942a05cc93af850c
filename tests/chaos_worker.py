"""A worker for the mixed-operations campaign (tests/test_chaos.py), run as a script.

    chaos_worker.py SEED COUNT HOT_IDS...

Runs COUNT operations (or until killed) on the project table named by the environment, in an
order drawn from SEED: new memories, updates of its own and of the shared HOT_IDS, deletes of
its own, searches and listings. One JSON line (flushed) per operation, printed only after the
call returned:

- {"op": "create"|"update"|"hot", "id", "revision", "body"}: an acknowledged write;
- {"op": "deleting", "id"} before a delete, {"op": "deleted", "id"} once it returned (a kill
  in between may or may not have removed it);
- {"op": "search"|"list", "found": N};
- {"op": ..., "code": EXIT, "error": MESSAGE}: a GraphitError (the worker goes on);
  {"op": ..., "code": 1, "error": ...}: anything else (an internal error: the worker stops).
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from graphit_cli.access.providers import resolve_scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.errors import GraphitError
from graphit_cli.opening import open_service

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "kernel",
    "cache",
    "index",
    "table",
    "schema",
    "commit",
    "shard",
    "vector",
]


def say(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


def main(argv: list[str]) -> int:
    seed, count, hot_ids = int(argv[0]), int(argv[1]), argv[2:]
    rng = random.Random(seed)
    service = open_service(resolve_scope("project"))
    mine: list[str] = []
    for n in range(count):
        roll = rng.random()
        words = " ".join(rng.sample(WORDS, 3))
        body = f"{words}: written by {seed}, operation {n}"
        op = "create"
        try:
            if roll < 0.2:
                op = "search"
                say({"op": op, "found": len(service.search(words).hits)})
            elif roll < 0.3:
                op = "list"
                say({"op": op, "found": len(service.catalogue())})
            elif roll < 0.4 and mine:
                op = "deleting"
                victim = mine.pop(rng.randrange(len(mine)))
                say({"op": op, "id": victim})
                service.delete(victim)
                say({"op": "deleted", "id": victim})
            elif roll < 0.6 and hot_ids:
                op = "hot"
                done = service.upsert(MemoryDraft(id=rng.choice(hot_ids), body=body)).memory
                say({"op": op, "id": done.id, "revision": done.revision, "body": done.body})
            elif roll < 0.75 and mine:
                op = "update"
                done = service.upsert(MemoryDraft(id=rng.choice(mine), body=body)).memory
                say({"op": op, "id": done.id, "revision": done.revision, "body": done.body})
            else:
                done = service.upsert(MemoryDraft(title=f"note {seed}-{n}", body=body)).memory
                mine.append(done.id)
                say({"op": op, "id": done.id, "revision": done.revision, "body": done.body})
        except GraphitError as exc:
            say({"op": op, "code": int(exc.exit_code), "error": exc.message})
        except Exception as exc:  # an internal error: reported, and this worker stops
            say({"op": op, "code": 1, "error": f"{type(exc).__name__}: {exc}"})
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
