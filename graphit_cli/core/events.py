"""The agent clients' hook events, by the names the clients give them.

Claude Code and Gemini CLI name their events in their settings files' `hooks`: the event before
a prompt is answered (each its own name), a session's start, and the moments context is about
to be lost. The installer (agents/clients.py), the hooks (warm/, cli/hooks.py,
cli/capture_hook.py) and the capture reminder (recall/capture.py) read them here. Imports
nothing: the hooks' cold path reads it.
"""

from __future__ import annotations

SESSION_START = "SessionStart"
USER_PROMPT_SUBMIT = "UserPromptSubmit"  # Claude Code, before a prompt is answered
BEFORE_AGENT = "BeforeAgent"  # Gemini CLI's: it gets the prompt and adds context to the turn
PRE_COMPACT = "PreCompact"  # Claude Code, before compaction: stdout goes to the summariser
STOP = "Stop"  # Claude Code, when the agent stops: additionalContext takes one more turn
PRE_COMPRESS = "PreCompress"  # Gemini CLI, before every turn: its systemMessage reaches the user
SESSION_END = "SessionEnd"  # both clients, as the session ends

# The event before a prompt is answered, per client with hooks.
PROMPT_EVENT = {"claude-code": USER_PROMPT_SUBMIT, "gemini": BEFORE_AGENT}
