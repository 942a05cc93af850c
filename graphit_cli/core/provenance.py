"""Who wrote a revision, how, from where; and a revision's review status. Pure data.

Every revision graphit writes carries a `Provenance`, stamped by graphit (the adapter says
`via`, the checkout says the author, branch and commit; `access/identity.py` reads them), never
by the model: nothing a tool's caller sends can set it. It is stored as JSON in the row's
`provenance_json` column, beside `status`:

- a revision of the chain's main line is `approved` (a row written before review existed has no
  status and reads as approved);
- a proposal (a write that a project's review policy holds back) is a row off the main line,
  `proposed` until a reviewer decides; an approved proposal becomes the next main-line revision
  (its provenance keeps the proposer as author and adds the approval), a rejected one stays a
  row of the chain, `rejected`, with the reviewer and the reason.

Identity is what the checkout says (git's `user.email`, or `GRAPHIT_AUTHOR`): accountability,
not access control, which stays the storage provider's grants.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

VIAS = ("cli", "mcp", "hook", "import", "explorer", "consolidate", "restore")
# The ways an agent writes: with review on, these always propose, whoever the author is.
AGENT_VIAS = frozenset({"mcp", "hook", "import"})

APPROVED = "approved"
PROPOSED = "proposed"
REJECTED = "rejected"
# A proposal a reviewer approved: its text is now a main-line revision; the row stays as the
# record of the proposal (shown as "approved" in JSON, never read as a revision).
ACCEPTED = "accepted"
PROPOSAL_STATUSES = frozenset({PROPOSED, REJECTED, ACCEPTED})


@dataclass(frozen=True)
class Provenance:
    """One revision's origin. `client` and `session` only where a client says them."""

    author: str
    via: str = "cli"
    client: str | None = None
    session: str | None = None
    branch: str | None = None
    commit: str | None = None
    # Review: who approved or rejected it (a proposal's decision), when, and why (a rejection).
    approved_by: str | None = None
    approved_at: str | None = None
    rejected_by: str | None = None
    rejected_at: str | None = None
    reason: str | None = None
    proposal: str | None = None  # an approved revision: the key of the proposal it came from
    proposed_at: str | None = None
    change: str | None = None  # a proposal: "delete" when it proposes deleting the memory
    # A final archive: who deleted the memory, by way of what, when (a stamp with "at").
    deletion: dict[str, Any] | None = field(default=None, hash=False)
    # A redacted revision: who redacted it and when (`graphit memory redact`).
    redaction: dict[str, Any] | None = field(default=None, hash=False)
    # Consolidation: the provenance of the members folded into this revision.
    members: tuple[dict[str, Any], ...] = field(default_factory=tuple, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract: every field, None where unknown; `members` only when any."""
        data = asdict(self)
        data["members"] = list(self.members)
        if not self.members:
            del data["members"]
        return data

    def to_json(self) -> str:
        return json.dumps(
            {k: v for k, v in self.to_dict().items() if v is not None},
            ensure_ascii=False,
            sort_keys=True,
        )

    def but(self, **changes: Any) -> Provenance:
        return replace(self, **changes)


_FIELDS = frozenset(Provenance.__dataclass_fields__)


def from_json(text: str | None) -> Provenance | None:
    """The stored JSON back (None for a row written before provenance existed, or unreadable)."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("author"), str):
        return None
    known = {k: v for k, v in data.items() if k in _FIELDS}
    known["members"] = tuple(m for m in known.get("members") or () if isinstance(m, dict))
    return Provenance(**known)


def deletion(live: Any, deleter: Provenance, now: datetime) -> Provenance:
    """A final archive's provenance: the deleted revision's own (`live`, a Memory), with who
    deleted it, by way of what, and when."""
    kept = live.provenance or Provenance(author=live.updated_by, via="")
    return kept.but(deletion={**deleter.to_dict(), "at": now.isoformat()})


def shown_status(status: str | None) -> str:
    """The status a record shows: `approved`, `proposed` or `rejected`."""
    if status in (PROPOSED, REJECTED):
        return status
    return APPROVED


def is_proposal(status: str | None) -> bool:
    """A row off the main line (a proposal, decided or not): never read as a revision."""
    return status in PROPOSAL_STATUSES
