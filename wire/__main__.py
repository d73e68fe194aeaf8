"""``python -m wire``: the command line of :mod:`wire.cli`."""

import sys

from wire.cli import main

sys.exit(main())
