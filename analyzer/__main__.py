"""``python -m analyzer`` runs the ``bgreview`` command line."""

from analyzer.cli import main

main()
