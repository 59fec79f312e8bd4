"""``python -m benchmarks.luck``."""

import sys

from benchmarks.luck import main

if __name__ == "__main__":
    sys.exit(main())
