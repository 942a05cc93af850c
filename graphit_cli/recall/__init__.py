"""What an agent is told at its session's start and at each prompt (the hooks' work)."""
