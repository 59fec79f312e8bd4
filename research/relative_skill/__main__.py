"""``python -m research.relative_skill``."""

import sys

from research.relative_skill import main

if __name__ == "__main__":
    sys.exit(main())
