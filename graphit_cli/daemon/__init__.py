"""The daemon: its loops per scope under a supervisor, the warm path it serves to the
CLI, and that path's versioned socket protocol (`wire`, stdlib only: the client is cold)."""
