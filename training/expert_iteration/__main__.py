"""``python -m training.expert_iteration``: see :mod:`training.expert_iteration`."""

from training.expert_iteration.command import main

if __name__ == "__main__":
    main()
