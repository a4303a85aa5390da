"""``python -m emurust ...``: the same as the ``emurust`` command (:mod:`emurust.cli`)."""

import sys

from emurust.cli import main

sys.exit(main())
