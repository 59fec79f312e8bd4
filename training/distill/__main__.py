"""``python -m training.distill``: see :mod:`training.distill`."""

from training.distill.command import main

if __name__ == "__main__":
    main()
