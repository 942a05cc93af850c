"""Scopes and access: scope identity and paths, the scope-reference lock, machine-local
state files, the providers that say where a table lives and with which grant, and the one
place that opens a scope."""
