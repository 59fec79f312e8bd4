"""``python -m benchmarks.rating_fit``."""

import sys

from benchmarks.rating_fit import main

if __name__ == "__main__":
    sys.exit(main())
