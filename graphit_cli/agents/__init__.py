"""Wiring agents to graphit: each MCP client's configuration file, hooks and instructions.

`files` holds the edits (JSON and JSONC through `jsonc`, which splices graphit's entry in and
out and keeps every other byte; TOML through tomlkit so comments survive; a marked Markdown
block) as pure text-in/text-out functions; `clients` says where each client keeps what, and
plans an install, an uninstall or a status as a list of file changes; nothing is written until
the caller applies them. No Typer, Rich or MCP SDK here.
"""
