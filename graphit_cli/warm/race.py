"""Which process answers a hook: a warm one, or this one, whichever is first within the budget.

A warm process (the daemon, an agent session's server) that is ready answers in tens of
milliseconds; one that is starting (a session's first prompt, while its MCP server loads) or
busy may not answer in time. So the hook asks the warm processes on a thread and, unless one
has answered within GRACE_SECONDS, runs the hook in its own process too (`hook.in_process`,
through `transport.InProcess`); the first answer wins and the other is dropped with the
process. With no warm socket at all the search in this process starts at once. The watchdog
(`hook.py`) ends the process at the budget whatever is still running, and logs the call as
late. Standard library only.
"""

from __future__ import annotations

import os
import queue
import threading
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from graphit_cli.warm.calls import HookCall

GRACE_SECONDS = 0.15  # a ready warm process answers well within it; a cold search takes ~0.5 s


def first_answer(
    hook: HookCall,
    call: Any,
    warm_until: float,
    in_process: Callable[[HookCall], dict[str, Any]],
    give_up: float | None = None,
    *,
    warm: bool = True,
) -> dict[str, Any] | None:
    """The first answer to `hook` of the warm processes (unless `warm` is False:
    GRAPHIT_NO_DAEMON) and of `in_process` (see the module), for the hook's `call`
    (`hook.Call`: where it is, for the watchdog); None when none came by `give_up`
    (monotonic; None: wait, the watchdog ends the process)."""
    from graphit_cli.warm import client

    answers: queue.Queue[tuple[str, dict[str, Any] | None, BaseException | None]] = queue.Queue()
    pending = 0

    def start(name: str, work: Any) -> None:
        nonlocal pending

        def body() -> None:
            try:
                answers.put((name, work(), None))
            except BaseException as exc:  # the other side may still answer
                answers.put((name, None, exc))

        pending += 1
        threading.Thread(target=body, name=f"graphit-hook-{name}", daemon=True).start()

    def cold() -> None:
        call.cold = True
        call.stage = "the search in this process"
        start("cold", lambda: in_process(hook))

    sockets = client.sockets(client.run_dir()) if warm else []
    if sockets:
        call.stage = f"a warm process ({_names(sockets)})"

        start("warm", lambda: warm_only(hook, warm_until))
        try:
            name, found, error = answers.get(timeout=_left(GRACE_SECONDS, give_up))
            pending -= 1
            if found is not None:
                return found
        except queue.Empty:
            pass
    cold()
    failure: BaseException | None = None
    while pending:
        try:
            name, found, error = answers.get(timeout=_left(None, give_up))
        except queue.Empty:
            return None
        pending -= 1
        if found is not None:
            return found
        if error is not None and name == "cold":
            failure = error
    assert failure is not None  # the cold search returns an answer or raises
    raise failure


def warm_only(hook: HookCall, until: float) -> dict[str, Any] | None:
    """A warm process's answer by `until` (monotonic), with which one answered; None."""
    from graphit_cli.warm.transport import Socket

    socket = Socket(until)
    found = socket.call(hook)
    if isinstance(found, dict) and isinstance(found.get("text"), str):
        return {**found, "via": socket.answered[0] if socket.answered else "warm"}
    return None


def _left(at_most: float | None, give_up: float | None) -> float | None:
    """Seconds to wait: `at_most`, and no later than `give_up` (monotonic)."""
    if give_up is None:
        return at_most
    left = max(0.0, give_up - time.monotonic())
    return left if at_most is None else min(at_most, left)


def _names(sockets: list[str]) -> str:
    return ", ".join(
        "the daemon" if os.path.basename(p) == "daemon.sock" else "an agent session's server"
        for p in sockets[:2]
    )
