"""``python -m agents.expert_iteration``: see :mod:`agents.expert_iteration`."""

from agents.expert_iteration.command import main

if __name__ == "__main__":
    main()
