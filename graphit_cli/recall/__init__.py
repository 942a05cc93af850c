"""What the agent hooks put in front of a model: recall, as opposed to search (hook.py: the
session start's and each prompt's context; capture.py: the request to save what was learned)."""
