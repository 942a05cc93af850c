"""How a yes/no setting is spelled: GRAPHIT_DEBUG, GRAPHIT_NO_DAEMON, and the hooks' opt-outs
(GRAPHIT_PROMPT_RECALL, GRAPHIT_CAPTURE).

config reads its flags through `flag_value` (and refuses a value it cannot read); so do the
paths that run before config may load (the thin read commands, the agent hooks), which treat
such a value as the full command would not. Imports nothing: the hooks' cold path reads it.
"""

from __future__ import annotations

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


def flag_value(raw: str | None, default: bool = False) -> bool | None:
    """True or False as spelled (any case, blanks around), `default` when unset or blank, None
    for anything else."""
    value = (raw or "").strip().lower()
    if not value:
        return default
    if value in TRUE:
        return True
    return False if value in FALSE else None
