"""The service: the memory use-cases over one scope's store (`memory.MemoryService`),
composed of collaborators with one job each (writes, reads, upkeep, the duplicate guard).
Must not import Typer, Rich, Starlette or the MCP SDK."""
