"""Import/export benchmark: graphit's own NDJSON export, and a foreign format, at 10k records.

Run from the repository root (see benchmarks/README.md):

    .venv/bin/python benchmarks/portability.py [--records 10000] [--json OUT]

All against real LanceDB tables in a temporary GRAPHIT_HOME, no embedding:

1. a source table of --records memories (batch upserts of real memory text, cycled), a tenth
   of them edited once so the export carries history;
2. `export --history` to NDJSON, in-process (the service call plus the serialisation);
3. `import` of that file into a fresh home, in-process (target: < 5 s for 10k records), then
   the same import again (idempotent: nothing written);
4. the same two steps through the CLI (`graphit memory import`), whole-process wall time;
5. a foreign format at the same size: an MCP memory.jsonl of --records entities, first import
   and re-import (drafts through `upsert_many`, ids from the stable source keys).

Records come from a JSONL file of real memories (title/body/tags) read at run time, never
copied. Figures vary with the machine's load: the script prints the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/_common.py

from _common import (
    Corpus,
    clean_env,
    data_path,
    finish,
    graphit_command,
    load_records,
    log,
    machine_info,
    require_data,
    reset_env,
    run_cli,
    table,
    verdict,
)

PROJECT = "01JD0000000000000000000BEN"
TARGET_IMPORT_S = 5.0


def _service(home: Path) -> Any:
    from graphit_cli.access.scopes import Scope
    from graphit_cli.opening import open_service

    os.environ["GRAPHIT_HOME"] = str(home)
    return open_service(Scope("project", PROJECT))


def _timed(step: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = step()
    return time.perf_counter() - started, value


def run(records: int, data: Path, workdir: Path) -> dict[str, Any]:
    from graphit_cli.core.models import MemoryDraft
    from graphit_cli.portability import importer, native

    corpus = Corpus(load_records(data))
    source = _service(workdir / "source-home")
    log(f"building a source table of {records} memories")
    created = []
    for start in range(0, records, 2000):
        result = source.upsert_many(corpus.drafts(start, min(2000, records - start)))
        created += [r.memory.id for r in result.results]
    edits = [MemoryDraft(id=i, body=f"Edited once: {n}.") for n, i in enumerate(created[::10])]
    source.upsert_many(edits)
    source.store.optimize()

    export_path = workdir / "export.ndjson"

    def export() -> int:
        rows = source.store.export_rows(archived=True)
        with export_path.open("w", encoding="utf-8") as handle:
            handle.writelines(native.ndjson_lines(rows))
        return len(rows)

    export_s, rows = _timed(export)
    log(f"exported {rows} rows in {export_s:.2f} s")

    fresh = _service(workdir / "import-home")
    import_s, report = _timed(lambda: importer.run(fresh, export_path))
    assert report.count("created") == records and not report.problems, report.summary()
    again_s, again = _timed(lambda: importer.run(fresh, export_path))
    assert again.count("skipped") == records, again.summary()
    log(f"import {import_s:.2f} s, re-import {again_s:.2f} s")

    env = {**clean_env(), "GRAPHIT_HOME": str(workdir / "cli-home"), "GRAPHIT_PROJECT_ID": PROJECT}
    env["GRAPHIT_NO_DAEMON"] = "1"
    cmd = [*graphit_command(), "memory", "import", str(export_path)]
    cli_s, _, _ = run_cli(cmd, env, workdir)
    cli_again_s, _, _ = run_cli(cmd, env, workdir)
    log(f"CLI import {cli_s:.2f} s, re-import {cli_again_s:.2f} s")

    jsonl = workdir / "memory.jsonl"
    with jsonl.open("w", encoding="utf-8") as handle:
        for i in range(records):
            draft = corpus.draft(i)
            observations = [p for p in (draft.body or "").split("\n") if p.strip()][:6]
            entity = {
                "type": "entity",
                "name": draft.title,
                "entityType": "convention",
                "observations": observations,
            }
            handle.write(json.dumps(entity) + "\n")
    foreign = _service(workdir / "foreign-home")
    foreign_s, freport = _timed(lambda: importer.run(foreign, jsonl))
    foreign_again_s, fagain = _timed(lambda: importer.run(foreign, jsonl))
    log(f"memory.jsonl import {foreign_s:.2f} s ({freport.summary()})")
    log(f"memory.jsonl re-import {foreign_again_s:.2f} s ({fagain.summary()})")
    return {
        "records": records,
        "rows_exported": rows,
        "export_s": round(export_s, 2),
        "import_s": round(import_s, 2),
        "reimport_s": round(again_s, 2),
        "cli_import_s": round(cli_s, 2),
        "cli_reimport_s": round(cli_again_s, 2),
        "foreign_import_s": round(foreign_s, 2),
        "foreign_reimport_s": round(foreign_again_s, 2),
        "foreign_summary": freport.summary(),
        "foreign_again_summary": fagain.summary(),
    }


def render(results: dict[str, Any]) -> str:
    r = results["portability"]
    n = r["records"]
    rows = [
        ["export --history (in-process)", f"{r['rows_exported']} rows", f"{r['export_s']:.2f}", ""],
        [
            "import NDJSON (in-process)",
            f"{n} memories",
            f"{r['import_s']:.2f}",
            verdict(r["import_s"], TARGET_IMPORT_S),
        ],
        ["import NDJSON again (no-op)", f"{n} memories", f"{r['reimport_s']:.2f}", ""],
        ["graphit memory import (CLI)", f"{n} memories", f"{r['cli_import_s']:.2f}", ""],
        ["graphit memory import again", f"{n} memories", f"{r['cli_reimport_s']:.2f}", ""],
        ["import memory.jsonl", f"{n} entities", f"{r['foreign_import_s']:.2f}", ""],
        ["import memory.jsonl again", f"{n} entities", f"{r['foreign_reimport_s']:.2f}", ""],
    ]
    machine = results["machine"]
    head = (
        f"portability benchmark, {machine['date']}, load {machine['loadavg_start']} -> "
        f"{machine['loadavg_end']}, commit {machine['git_commit']}\n"
        f"target: NDJSON import of 10k records < {TARGET_IMPORT_S:.0f} s (no embedding)\n"
    )
    return head + table(["STEP", "SIZE", "SECONDS", "TARGET"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--data", help="memories JSONL (default: the cursorrules set)")
    parser.add_argument("--json", dest="json_out", help="also write the results here")
    args = parser.parse_args()
    data = data_path(args.data)
    if not require_data(data):
        raise SystemExit(2)
    reset_env()
    started = time.perf_counter()
    results: dict[str, Any] = {"machine": machine_info()}
    with tempfile.TemporaryDirectory(prefix="graphit-bench-portability-") as tmp:
        results["portability"] = run(args.records, data, Path(tmp))
    finish(results, started, render, args.json_out)


if __name__ == "__main__":
    main()
