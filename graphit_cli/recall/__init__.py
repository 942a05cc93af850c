"""What the agent hooks put in front of a model: recall, as opposed to search.

Search (`graphit memory search`, the MCP tools, `recall`) keeps the spec's selection and order.
The hooks answer a different question, "which memories is this prompt about, that the agent
has not seen yet in this session", and must say nothing when the answer is none:

- `prompt`: the user's words out of what the client wrapped around them (`prompt.py`);
- `policy`: the absolute precision gate and the choice by relevance (`policy.py`), its
  constants per model profile (core/profiles.py);
- `session`: what this session has already been shown (`session.py`);
- `log`: why each memory was shown or left out (`log.py`, `graphit agent recalls`);
- `hook`: the two entry points the hot path calls (`prompt_answer`, `session_answer`: what to
  print and what it shows; `record`: marked and logged by the process that printed it);
- `kept`: session start from the mandatory blocks kept beside the tables, no table opened;
- `capture`: the request to save what a session learned before its context is lost.

Nothing here imports the daemon or an adapter: the daemon calls in, as the CLI does.
"""
