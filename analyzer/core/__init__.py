"""Core values: positions, plays, match state, identifiers and errors. No I/O."""
