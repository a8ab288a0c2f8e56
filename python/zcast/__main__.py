"""``python -m zcast``: the same as the ``zcast`` command."""

import sys

from zcast.cli import main

sys.exit(main())
