"""The agent's hot path: the warm-path operations (`ops.py`), and the thin client a hook or a
read command reaches a warm process with before anything heavy is imported (`client.py`,
`hook.py`). The warm processes themselves (the daemon, an agent session's warm server) live in
`daemon/`."""
