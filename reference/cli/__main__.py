"""``python -m sinpe.reference.cli``: the same as the ``sinpe`` command."""
from sinpe.reference.cli import main

raise SystemExit(main())
