"""What the agent hooks put in front of a model: recall, as opposed to search."""
