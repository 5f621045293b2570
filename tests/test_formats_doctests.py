"""The docstring examples of the readers, writers and the replay run as tests."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["analyzer.formats.records", "analyzer.formats.mat", "analyzer.formats.sgf",
           "analyzer.formats.mat_writer", "analyzer.formats.sgf_writer", "analyzer.analysis.replay",
           "analyzer.analysis.normalise", "analyzer.analysis.identifiers", "analyzer.analysis.play_matcher",
           "analyzer.analysis.replay_stream"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
