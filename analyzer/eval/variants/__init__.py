"""Evaluators for Dutch backgammon and Mahbusa: inputs, nets, search (see :mod:`.engine`)."""
