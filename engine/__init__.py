"""The rules engine: cards, deterministic deals, and one module per game. Pure Python, no I/O."""
