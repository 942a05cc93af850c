"""Consolidation: deterministic candidates, agent-written plans, guarded apply, undo.

graphit finds candidates (exact and near duplicates, stale memories) deterministically; an agent
or a person writes the merged text as a plan; `Consolidator` applies the plan under guards that
no plan can talk its way past, logs every change and undoes a logged apply. The contract is
the project's consolidation contract. The CLI and the MCP server call `Consolidator`, so they
share its guards. One module per job:

- `candidates`: exact and near duplicate groups and stale memories (pure: rows + vectors in,
  a `Report` out); the similarity thresholds.
- `plan`: the plan's JSON shape, validated into `Action`s (and refusals as `PlanEntry`s).
- `tables`: what applying needs from a table: the service, or an in-memory `Simulation`.
- `apply`: one pass of a plan's actions over a table, with the per-action guards (revisions,
  flags kept, last memory, tag limit) and the merged texts; its `PlanOutcome`.
- `consolidator`: the use-case the adapters call: report, apply (simulated first, then the
  mass-removal guard), undo.
- `log`: the apply log, written change by change, and read back for undo.
- `render`: a report and an outcome as JSON-ready dicts and Markdown.
"""
