"""``python -m research.skill_curve``."""

import sys

from research.skill_curve import main

if __name__ == "__main__":
    sys.exit(main())
