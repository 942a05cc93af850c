"""Portability: export, import, named contexts, and recall/search across scopes.

- `native`: graphit's own formats (NDJSON rows, a Markdown folder), written and read back with
  ids, revisions, links and dates intact;
- `foreign`: the files people already keep agent memory in (AGENTS.md / CLAUDE.md /
  GEMINI.md, Cursor rules) and the helpers every foreign parser shares; `mcp_memory`: the MCP
  reference memory server's memory.jsonl; `notes`: Markdown notes with frontmatter;
- `importer`: format detection, per-item problems, dry runs, one commit per batch;
- `contexts`: named contexts (`context add|list|refresh|remove`) and their metadata file;
- `across`: recall and search over the project, the user scope and recall contexts.

Calls MemoryService's public methods; no LanceDB or pyarrow here (the store owns them), and
no Typer or Rich (the CLI renders what these functions return).
"""
