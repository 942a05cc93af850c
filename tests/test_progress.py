"""Progress bars for long commands: drawn on a terminal's stderr only."""

from __future__ import annotations

import io

import pytest

from graphit_cli.cli.progress import bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_is_drawn_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    with bar("embedding") as progress:
        for done in range(0, 65, 8):
            progress(done, 64)
    assert "embedding" in screen.getvalue() and "64/64" in screen.getvalue()


def test_nothing_is_written_when_stderr_is_not_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    piped = io.StringIO()
    monkeypatch.setattr("sys.stderr", piped)
    with bar("importing") as progress:
        progress(10, 10)
    assert piped.getvalue() == ""


def test_small_jobs_get_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    with bar("importing", minimum=500) as progress:
        progress(10, 10)
    assert screen.getvalue() == ""
