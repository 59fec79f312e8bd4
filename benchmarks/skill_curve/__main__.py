"""``python -m benchmarks.skill_curve``."""

import sys

from benchmarks.skill_curve import main

if __name__ == "__main__":
    sys.exit(main())
