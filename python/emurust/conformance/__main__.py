"""``python -m emurust.conformance``: the conformance runner's command line."""

from emurust.conformance.cli import main

raise SystemExit(main())
