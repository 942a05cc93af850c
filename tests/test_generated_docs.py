"""The committed man page and completions match what scripts/gen_docs.py makes from the app."""

from __future__ import annotations

import difflib
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import typer.main

from graphit_cli import config
from graphit_cli.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
MAN_PAGE = "man/graphit.1"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return module


gen_docs = _load_generator()


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    """One fresh render for the whole module (the completions each take a subprocess)."""
    return gen_docs.render_all()


def _plain(roff: str) -> str:
    """The man page's words without roff escapes, close enough to what `man` shows."""
    return re.sub(r"\\f[BIRP]", "", roff).replace("\\-", "-").replace("\\e", "\\")


def _commands(cmd, path: str = "graphit"):
    """Every (command path, command) of the live app, walked without the generator's help."""
    yield path, cmd
    for name, sub in getattr(cmd, "commands", {}).items():
        if not sub.hidden:
            yield from _commands(sub, f"{path} {name}")


def test_committed_files_are_current(outputs: dict[str, str]) -> None:
    stale = gen_docs.stale_files(ROOT, outputs)
    if stale:
        first = ROOT / stale[0]
        old = first.read_text(encoding="utf-8").splitlines() if first.is_file() else []
        diff = difflib.unified_diff(
            old, outputs[stale[0]].splitlines(), "committed", "generated", lineterm=""
        )
        pytest.fail(
            f"stale generated docs: {', '.join(stale)}; run `make docs` and commit them.\n"
            + "\n".join(list(diff)[:40])
        )


def test_man_page_mentions_every_command_and_option(outputs: dict[str, str]) -> None:
    page = outputs[MAN_PAGE]
    plain = _plain(page)
    root = typer.main.get_command(app)
    paths = []
    for path, cmd in _commands(root):
        paths.append(path)
        if path != "graphit":
            assert f'.SS "{path}"' in plain, f"no section for `{path}`"
        for param in cmd.params:
            if getattr(param, "hidden", False):
                continue
            for opt in [*param.opts, *param.secondary_opts]:
                if opt.startswith("-"):
                    assert opt in plain, f"`{path}` option {opt} missing from {MAN_PAGE}"
    assert {"graphit init", "graphit memory", "graphit memory upsert"} <= set(paths)


def test_man_page_sections(outputs: dict[str, str]) -> None:
    page = outputs[MAN_PAGE]
    plain = _plain(page)
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EXIT STATUS"):
        assert f".SH {section}\n" in page
    for section in ("ENVIRONMENT", "FILES"):
        assert f".SH {section}\n" in page
    for code in ("0", "1", "2", "3", "4", "5", "6", "7", "8", "130"):
        assert f".TP\n\\fB{code}\\fR\n" in page, f"exit code {code} missing"
    env_names = [v for k, v in vars(config).items() if k.startswith("ENV_")]
    assert env_names
    for name in env_names:
        assert f".TP\n{name}\n" in plain, f"{name} missing from ENVIRONMENT"


def test_output_is_independent_of_terminal_and_machine(
    outputs: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "33")
    monkeypatch.setenv("GRAPHIT_HOME", "/somewhere/else")
    assert gen_docs.man_page() == outputs[MAN_PAGE]
    for rel, text in outputs.items():
        assert str(ROOT) not in text, rel
        assert str(Path.home()) not in text, rel
        assert text.endswith("\n") and not text.endswith("\n\n"), rel


def test_zsh_completion_starts_with_compdef(outputs: dict[str, str]) -> None:
    # compinit only autoloads a completion file whose first line is #compdef.
    assert outputs["completions/graphit.zsh"].startswith("#compdef graphit\n")
    for shell in ("bash", "zsh", "fish"):
        assert "_GRAPHIT_COMPLETE=complete_" in outputs[f"completions/graphit.{shell}"]


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_man_page_has_no_roff_warnings(outputs: dict[str, str]) -> None:
    result = subprocess.run(
        ["groff", "-man", "-ww", "-z"],
        input=outputs[MAN_PAGE],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, "")


def test_check_names_stale_files_and_writes_nothing(
    outputs: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "checkout"
    target.mkdir()
    monkeypatch.setattr(gen_docs, "ROOT", target)
    monkeypatch.setattr(gen_docs, "render_all", lambda: dict(outputs))

    assert gen_docs.main(["--check"]) == 1
    message = capsys.readouterr().err
    assert message.count("\n") == 1
    for rel in outputs:
        assert rel in message
    assert list(target.iterdir()) == []

    assert gen_docs.main([]) == 0
    assert gen_docs.main(["--check"]) == 0
    (target / MAN_PAGE).write_text(outputs[MAN_PAGE] + '.\\" edited\n', encoding="utf-8")
    capsys.readouterr()
    assert gen_docs.main(["--check"]) == 1
    assert capsys.readouterr().err == (f"stale generated docs: {MAN_PAGE} (run `make docs`)\n")


# --- the command reference (docs/reference/) --------------------------------------------------


def test_every_command_has_a_reference_page(outputs: dict[str, str]) -> None:
    """Any command's reference is one hop from the index, and says what its --help says."""
    index = outputs["docs/reference/README.md"]
    root = typer.main.get_command(app)
    for path, cmd in _commands(root):
        name = "-".join(path.split()[1:]) or "graphit"
        page = outputs.get(f"docs/reference/{name}.md")
        assert page is not None, f"no reference page for `{path}`"
        assert page.startswith(f"# {path}\n"), name
        assert f"[`{path}`]({name}.md)" in index, f"the index does not link `{path}`"
        for param in cmd.params:
            for opt in [*param.opts, *param.secondary_opts]:
                if opt.startswith("-") and not getattr(param, "hidden", False):
                    assert opt in page, f"`{path}` option {opt} missing from its page"


def test_a_removed_commands_page_is_stale_and_make_docs_removes_it(
    outputs: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "checkout"
    monkeypatch.setattr(gen_docs, "ROOT", target)
    monkeypatch.setattr(gen_docs, "render_all", lambda: dict(outputs))
    assert gen_docs.main([]) == 0
    gone = target / "docs" / "reference" / "memory-frobnicate.md"
    gone.write_text("# graphit memory frobnicate\n", encoding="utf-8")
    assert gen_docs.stale_files(target, outputs) == ["docs/reference/memory-frobnicate.md"]
    assert gen_docs.main([]) == 0
    assert not gone.exists() and gen_docs.stale_files(target, outputs) == []


def test_exit_codes_page_is_errors_py(outputs: dict[str, str]) -> None:
    """Every ExitCode, with the class that exits with it; and `graphit --help` names each."""
    from graphit_cli import errors
    from graphit_cli.cli.app import EPILOG

    page = outputs["docs/reference/exit-codes.md"]
    for member in errors.ExitCode:
        assert f"| {int(member)} | `{member.name}` |" in page
        assert re.search(rf"\b{int(member)} [a-zA-Z]", EPILOG), f"--help lacks exit {int(member)}"
    assert "`NoSuchBucket`" in page and "`CommitContention`, `Conflict`" in page


def test_environment_page_names_every_variable(outputs: dict[str, str]) -> None:
    page = outputs["docs/reference/environment.md"]
    for key, name in vars(config).items():
        if key.startswith("ENV_"):
            assert f"## `{name}`\n" in page
