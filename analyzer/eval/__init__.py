"""Evaluation: features, neural nets, bear-off databases, n-ply engine, cube and match equity."""
