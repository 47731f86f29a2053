"""``python -m torch_bleu``: the ``torch-bleu`` command line (see :mod:`torch_bleu.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
