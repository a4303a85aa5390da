"""``python -m emurust.tools.asm SOURCE -o OUT.gb [--sym OUT.sym] [--fix] [--pad N]``."""

import sys

from emurust.tools.asm.cli import main

sys.exit(main())
