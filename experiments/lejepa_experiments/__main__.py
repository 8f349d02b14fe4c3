"""``python -m lejepa_experiments ...`` is the ``lejepa`` command."""

import sys

from .cli import main

sys.exit(main())
