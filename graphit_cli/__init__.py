"""graphit: durable memory for AI agents.

Importing this package must stay cheap: `graphit --help` loads it, so nothing heavy
(lancedb, pyarrow, numpy, torch) may be imported here or at module level of `cli/`.
"""

__version__ = "0.2.0"
