"""The assignment rule: a value is a secret because a credential's name is assigned it
(`DB_PASSWORD=...`, `api_key: "..."`, `SECRET_KEY: str = "..."`), tried only where such a name
begins (core/secret_patterns.py NAME_STARTS, ASSIGNMENT). The names that hold none (gitleaks'
allowlisted `csrf_token`, a template's `${DB_PASSWORD}`, `existingSecret`, `routing_key`, a
public key's) and the values that are none (core/secret_values.py `credible`) are left alone.
Pure: standard library only.
"""

from __future__ import annotations

from graphit_cli.core import secret_context as context
from graphit_cli.core import secret_patterns as patterns
from graphit_cli.core import secret_rules
from graphit_cli.core import secret_values as values


def found(text: str, gate: dict[str, list[int]]) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each value assigned to a credential's name in `text`; `gate` is
    where each literal is (core/secret_gate.py `literals_in`)."""
    spans: list[tuple[int, int, str]] = []
    starts = sorted({at for word in patterns.NAME_STARTS for at in gate.get(word, ())})
    for at in starts:
        named = patterns.ASSIGNMENT.match(text, at)
        if named is None or patterns.ARN.search(text, max(0, at - 120), at):
            continue
        group = "quoted" if named.group("quoted") is not None else "bare"
        value = named.group(group)
        begin = at
        while begin > max(0, at - 50) and (text[begin - 1].isalnum() or text[begin - 1] in "_.-"):
            begin -= 1
        if secret_rules.names_allowed(secret_rules.rules(), text[begin : named.end()]):
            continue  # a name gitleaks knows holds no secret (`csrf_token`, `public_key`)
        if text[max(0, begin - 2) : begin].endswith("{"):
            continue  # `${DB_PASSWORD:?unset}`, `{{ api_key }}`: a variable, not its value
        if text[begin : named.end("name")].lower().startswith("1password"):
            continue  # `stored in 1Password 'Printers'`: the manager, not a password's name
        if context.REFERENCE_NAME.search(text[begin : named.end("name")]):
            continue  # `existingSecret: keycloak-admin` names where the secret is
        if context.names_a_key_of_data(text[begin : named.start("name")]):
            continue  # `insert_deduplication_token =`, `routing_key:`: no credential
        before = text[max(0, begin - 30) : begin]
        if named["name"].lower() in ("key", "_key") and (
            not context.random_key(value)
            or context.names_no_secret("", before + text[begin : named.start("name")])
        ):
            continue  # `key = "orders"`: a key of a map, a cache, a sort; `site key:`
        if context.public_or_id(text[max(0, begin - 80) : named.end("name")], ""):
            continue  # `search-only apiKey:`, `anon key`, `docsearch({ apiKey:`, `csrf...token`
        if value.strip().lower() in secret_rules.public_values(secret_rules.rules()):
            continue  # a value gitleaks knows is published
        if values.credible(value, quoted=group == "quoted", name=named.group("name")):
            spans.append(
                (named.start(group), named.end(group), values.assigned_kind(named["name"]))
            )
    return spans
