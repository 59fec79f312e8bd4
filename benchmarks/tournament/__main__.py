"""``python -m benchmarks.tournament``."""

import sys

from benchmarks.tournament import main

if __name__ == "__main__":
    sys.exit(main())
