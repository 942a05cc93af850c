"""The due-time gate (pure): whether a table needs a maintenance pass, and why.

A pass folds unindexed rows into the indexes, compacts small fragments, builds the vector
index once enough rows have vectors, and prunes versions older than the retention window.
The gate reads the table's own state and the time since the last pass; the daemon's
maintenance loop and `graphit memory maintain` (without --force) both go through it.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphit_cli.core.models import TableState

VECTOR_INDEX_MIN_ROWS = 256  # LanceDB IVF indexes trained on fewer rows index nothing


@dataclass(frozen=True)
class GateThresholds:
    unindexed_rows: int = 1
    small_fragments: int = 8
    prunable_versions: int = 50
    max_idle_seconds: float = 24 * 3600  # a pass at least daily, whatever the state


def due_reasons(
    state: TableState,
    seconds_since_last_pass: float | None,
    thresholds: GateThresholds | None = None,
) -> list[str]:
    """Every reason a pass is due; an empty list means the gate stays shut."""
    limits = thresholds or GateThresholds()
    if state.rows == 0:
        return []
    reasons = []
    if state.unindexed_rows >= limits.unindexed_rows:
        reasons.append(f"{state.unindexed_rows} rows not in the indexes")
    if state.small_fragments >= limits.small_fragments:
        reasons.append(f"{state.small_fragments} small fragments")
    if not state.vector_index and state.rows_with_vectors >= VECTOR_INDEX_MIN_ROWS:
        reasons.append(f"{state.rows_with_vectors} rows with vectors and no vector index")
    if state.prunable_versions >= limits.prunable_versions:
        reasons.append(f"{state.prunable_versions} versions past the retention window")
    idle = seconds_since_last_pass is None or seconds_since_last_pass >= limits.max_idle_seconds
    if idle and not reasons and (state.prunable_versions or state.small_fragments > 1):
        reasons.append("no pass for a day")
    return reasons


def actions_taken(before: TableState, after: TableState) -> list[str]:
    """What a pass did, read from the table's state before and after it: only what happened
    (a pass that pruned no version does not say it pruned versions)."""
    done = []
    if before.unindexed_rows > after.unindexed_rows:
        folded = before.unindexed_rows - after.unindexed_rows
        done.append(f"folded {folded} rows into the indexes")
    if after.fragments < before.fragments:
        done.append(f"compacted {before.fragments} fragments into {after.fragments}")
    if after.prunable_versions < before.prunable_versions:
        done.append(
            f"pruned versions past the retention window ({before.prunable_versions} -> "
            f"{after.prunable_versions})"
        )
    return done or ["nothing to fold, compact or prune"]
