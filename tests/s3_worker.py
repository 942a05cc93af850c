"""A writer process for the S3 concurrency and fault tests (run as a script, one OS process).

    s3_worker.py mix WORKER DISTINCT HOT_ID HOT     # DISTINCT new memories + HOT updates of HOT_ID
    s3_worker.py stream WORKER COUNT                # new memories until COUNT or an error

Each committed write is printed as one JSON line (flushed) only after the call returned, so the
test knows exactly which writes were reported. A GraphitError prints `ERROR <message>` on
stderr and exits with its exit code, like the CLI.
"""

from __future__ import annotations

import json
import sys

from graphit_cli.access.providers import resolve_scope
from graphit_cli.core.models import MemoryDraft
from graphit_cli.errors import GraphitError
from graphit_cli.opening import open_service


def report(kind: str, memory_id: str, revision: int) -> None:
    print(json.dumps({"kind": kind, "id": memory_id, "revision": revision}), flush=True)


def main(argv: list[str]) -> int:
    mode, worker = argv[0], argv[1]
    service = open_service(resolve_scope("project"))
    try:
        if mode == "mix":
            distinct, hot_id, hot = int(argv[2]), argv[3], int(argv[4])
            for i in range(max(distinct, hot)):
                if i < distinct:
                    done = service.upsert(
                        MemoryDraft(title=f"w{worker} note {i}", body=f"worker {worker} wrote {i}")
                    )
                    report("distinct", done.memory.id, done.memory.revision)
                if i < hot:
                    done = service.upsert(
                        MemoryDraft(id=hot_id, body=f"hot body from worker {worker}, write {i}")
                    )
                    report("hot", done.memory.id, done.memory.revision)
        elif mode == "stream":
            for i in range(int(argv[2])):
                done = service.upsert(MemoryDraft(title=f"stream {i}", body=f"stream body {i}"))
                report("stream", done.memory.id, done.memory.revision)
    except GraphitError as exc:
        print(f"ERROR {exc.message}", file=sys.stderr, flush=True)
        return int(exc.exit_code)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
