"""``python -m benchmarks.relative_skill``."""

import sys

from benchmarks.relative_skill import main

if __name__ == "__main__":
    sys.exit(main())
