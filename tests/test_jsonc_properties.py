"""The span-keeping JSON/JSONC editor (`graphit_cli/agents/jsonc.py`), as properties.

Files are laid out at random (one-line or expanded containers, tabs or spaces, `//` and `/* */`
comments, trailing commas, CRLF): installing an entry and uninstalling it gives back the exact
bytes, the installed text always parses to the expected data, and nothing outside graphit's
entry moves. The layouts each client's documentation shows are pinned as examples.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from graphit_cli.agents import jsonc
from tests.conftest import examples

ENTRY = {"type": "stdio", "command": "graphit", "args": ["memory", "mcp"]}
HOOK = {"hooks": [{"type": "command", "command": "graphit agent hook session-start"}]}

keys = st.sampled_from(["a", "b", "theme", "mcpServers", "x y", "é", "servers", "hooks"])
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 500), st.text(max_size=6), st.floats(0, 9)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def layouts(draw: st.DrawFn, value: Any, indent: str = "", unit: str = "  ") -> str:
    """`value` written the way a person or another tool might have."""
    if not isinstance(value, dict | list) or not value:
        if isinstance(value, dict | list):
            return draw(st.sampled_from(["{}", "{ }"] if isinstance(value, dict) else ["[]"]))
        return json.dumps(value, ensure_ascii=False)
    pairs = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    expanded = draw(st.booleans())
    inner = indent + unit
    parts = []
    for k, v in pairs:
        name = (
            ""
            if k is None
            else json.dumps(k, ensure_ascii=False) + draw(st.sampled_from([": ", ":", " : "]))
        )
        parts.append(name + draw(layouts(v, inner if expanded else indent, unit)))
    trailing = draw(st.booleans())
    comment = draw(st.sampled_from(["", " // note", " /* c */"]))
    if expanded:
        lines = [
            inner + p + ("," if i < len(parts) - 1 or trailing else "") for i, p in enumerate(parts)
        ]
        if comment:
            lines[0] += comment
        return opening + "\n" + "\n".join(lines) + "\n" + indent + closing
    sep = draw(st.sampled_from([", ", ","]))
    return opening + sep.join(parts) + ("," if trailing else "") + closing


@st.composite
def files(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    data = draw(st.dictionaries(keys, values, max_size=4))
    if draw(st.booleans()) or "mcpServers" in data:
        data["mcpServers"] = draw(st.dictionaries(keys, values, max_size=2))
    unit = draw(st.sampled_from(["  ", "    ", "\t"]))
    text = draw(layouts(data, "", unit))
    if draw(st.booleans()):
        text = draw(st.sampled_from(["// settings\n", "/* a */ ", ""])) + text
    text += draw(st.sampled_from(["\n", "", "\n\n"]))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text, data


SETTINGS = settings(
    max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(files())
@example(('{"mcpServers": {}}', {"mcpServers": {}}))
@example(('{\n  "mcpServers": {\n    "x": {"command": "npx", "args": ["-y", "pkg"]}\n  }\n}\n', {}))
@example(('{\n\t"theme": "dark", // mine\n\t"mcpServers": {},\n}', {}))
def test_install_then_uninstall_is_the_identity(case: tuple[str, dict[str, Any]]) -> None:
    text, _ = case
    data = jsonc.loads(text)
    assert data == json.loads(json.dumps(data))
    installed = jsonc.set_path(text, ["mcpServers", "graphit"], ENTRY)
    expected = json.loads(json.dumps(data))
    expected.setdefault("mcpServers", {})["graphit"] = ENTRY
    assert jsonc.loads(installed) == expected
    assert jsonc.set_path(installed, ["mcpServers", "graphit"], ENTRY) == installed
    assert jsonc.remove_entry(installed, ["mcpServers", "graphit"]) == text


@SETTINGS
@given(files())
def test_a_hook_added_and_taken_out_is_the_identity(case: tuple[str, dict[str, Any]]) -> None:
    text, data = case
    if isinstance(data.get("hooks"), dict) or "hooks" not in data:
        installed = jsonc.add_item(text, ["hooks", "SessionStart"], HOOK)
        parsed = jsonc.loads(installed)
        assert parsed["hooks"]["SessionStart"][-1] == HOOK
        index = len(parsed["hooks"]["SessionStart"]) - 1
        assert jsonc.remove_entry(installed, ["hooks", "SessionStart", index]) == text


@SETTINGS
@given(files())
def test_a_new_file_comes_and_goes(case: tuple[str, dict[str, Any]]) -> None:
    created = jsonc.set_path(None, ["mcpServers", "graphit"], ENTRY)
    assert json.loads(created) == {"mcpServers": {"graphit": ENTRY}}
    assert created.startswith('{\n  "mcpServers": {\n    "graphit": {\n')
    assert jsonc.remove_entry(created, ["mcpServers", "graphit"]) is None


@pytest.mark.parametrize(
    "text",
    [
        '{\n  // a comment\n  "a": [1, 2,],\n  /* block */ "b": {"c": true,},\n}\n',
        '\ufeff{"a": "\\u00e9\\n"}',
        "[1, 2]",
        '"just a string"',
    ],
)
def test_it_reads_what_vs_code_and_gemini_read(text: str) -> None:
    stripped = text.replace("\ufeff", "")
    plain = json.loads(stripped) if "//" not in text else None
    assert plain is None or jsonc.loads(text) == plain


@pytest.mark.parametrize(
    "bad", ['{"a": 1', "{'a': 1}", '{"a": 1} x', "{a: 1}", '{"a" 1}', "/* open", '{"a": 01}']
)
def test_what_no_client_reads_is_refused(bad: str) -> None:
    with pytest.raises(jsonc.JsoncError, match="line 1 column"):
        jsonc.loads(bad)


def test_other_servers_keep_their_compact_args_and_the_file_its_comments() -> None:
    """The layout every client's documentation shows, as a person would have kept it."""
    text = (
        "{\n"
        "  // Gemini CLI settings\n"
        '  "theme": "GitHub",\n'
        '  "mcpServers": {\n'
        '    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},\n'
        "  },\n"
        "}\n"
    )
    installed = jsonc.set_path(text, ["mcpServers", "graphit"], ENTRY)
    assert installed.startswith(text.split('    "github"')[0])
    assert (
        '    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},\n'
        in installed
    )
    assert '"args": ["memory", "mcp"]' in installed  # an array of scalars stays on one line
    assert jsonc.remove_entry(installed, ["mcpServers", "graphit"]) == text
