"""``python -m cosci.cli``: the ``cosci`` command (:func:`cosci.cli.main`)."""

from cosci.cli import main

main()
