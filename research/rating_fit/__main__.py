"""``python -m research.rating_fit``."""

import sys

from research.rating_fit import main

if __name__ == "__main__":
    sys.exit(main())
