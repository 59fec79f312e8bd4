"""``python -m research.luck``."""

import sys

from research.luck import main

if __name__ == "__main__":
    sys.exit(main())
