"""The name of every GRAPHIT_* environment variable, and where a project's lock file is: the
standard library only, so that the paths that run before config loads (the agent hooks, the
thin read commands, the warm client) read the same names and walk up the same way. config.py
reads the settings; this module only names them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

ENV_HOME = "GRAPHIT_HOME"
ENV_PROJECT_ID = "GRAPHIT_PROJECT_ID"
ENV_DEBUG = "GRAPHIT_DEBUG"
ENV_FORMAT = "GRAPHIT_FORMAT"
ENV_AUTHOR = "GRAPHIT_AUTHOR"
ENV_SCOPE = "GRAPHIT_SCOPE"
ENV_FOLD_THRESHOLD = "GRAPHIT_FOLD_THRESHOLD"
ENV_RETENTION = "GRAPHIT_VERSION_RETENTION"
ENV_EMBEDDER = "GRAPHIT_EMBEDDER"
ENV_EMBED_THREADS = "GRAPHIT_EMBED_THREADS"
ENV_NO_DAEMON = "GRAPHIT_NO_DAEMON"
ENV_EMBED_INTERVAL = "GRAPHIT_EMBED_INTERVAL"
ENV_MCP_BACKFILL_INTERVAL = "GRAPHIT_MCP_BACKFILL_INTERVAL"
ENV_MAINTAIN_INTERVAL = "GRAPHIT_MAINTAIN_INTERVAL"
ENV_BACKOFF_MAX = "GRAPHIT_BACKOFF_MAX"
ENV_STABLE_SECONDS = "GRAPHIT_STABLE_SECONDS"
ENV_MAX_FAILURES = "GRAPHIT_MAX_FAILURES"
ENV_ACTIVE_DAYS = "GRAPHIT_ACTIVE_DAYS"
ENV_DRAIN_SECONDS = "GRAPHIT_DRAIN_SECONDS"
ENV_DAEMON_CONNECT = "GRAPHIT_DAEMON_CONNECT_TIMEOUT"
ENV_DAEMON_SEND = "GRAPHIT_DAEMON_SEND_TIMEOUT"
ENV_DAEMON_ANSWER = "GRAPHIT_DAEMON_ANSWER_TIMEOUT"
# The per-prompt hook's seconds (session start: twice); the hook reads it here.
ENV_HOOK_BUDGET = "GRAPHIT_HOOK_BUDGET"
# Opt-outs of the agent hooks, per shell (warm/hook.py and recall/capture.py read them).
ENV_PROMPT_RECALL = "GRAPHIT_PROMPT_RECALL"
ENV_CAPTURE = "GRAPHIT_CAPTURE"
# The environment-only provider (CI): GRAPHIT_PROVIDER=s3 plus these and the standard AWS_*.
ENV_PROVIDER = "GRAPHIT_PROVIDER"
ENV_S3_BUCKET = "GRAPHIT_S3_BUCKET"
ENV_S3_PREFIX = "GRAPHIT_S3_PREFIX"
ENV_S3_ENDPOINT = "GRAPHIT_S3_ENDPOINT"
ENV_BROKER_TOKEN = "GRAPHIT_BROKER_TOKEN"
ENV_GRANT_CHECK = "GRAPHIT_GRANT_CHECK_SECONDS"
# Directories the walk up for graphit.lock.json does not enter (as git's
# GIT_CEILING_DIRECTORIES): a sandbox, a CI runner's scratch, a home holding stray files.
ENV_CEILING_DIRECTORIES = "GRAPHIT_CEILING_DIRECTORIES"

PROJECT_LOCK_FILE = "graphit.lock.json"


def upward(start: str) -> Iterator[str]:
    """`start` (an absolute path) and the directories above it, nearest first, up to the root
    or to a directory GRAPHIT_CEILING_DIRECTORIES names (absolute paths, separated by
    os.pathsep), which is not entered; `start` itself always comes first."""
    ceilings = os.environ.get(ENV_CEILING_DIRECTORIES, "")
    stops = {os.path.realpath(c) for c in ceilings.split(os.pathsep) if os.path.isabs(c)}
    directory = start
    while True:
        yield directory
        parent = os.path.dirname(directory)
        if parent == directory or parent in stops:
            return
        directory = parent


def lock_dir(start: str) -> str | None:
    """The directory of the nearest graphit.lock.json at `start` (an absolute path) or above
    (`upward`); None when there is none."""
    for directory in upward(start):
        if os.path.isfile(os.path.join(directory, PROJECT_LOCK_FILE)):
            return directory
    return None
