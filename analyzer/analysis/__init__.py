"""Analysis of match records: replay through the rules engine (:mod:`analyzer.analysis.replay`),
then decision ranking, luck and statistics on top of the replayed decisions."""
