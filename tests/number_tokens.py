"""Number tokens of pages and reports: what the checks that every quoted figure is found in a generated
source compare (``tests/test_summary.py`` for the README, ``tests/test_traced_figures.py`` for docs pages)."""

from __future__ import annotations

import re

#: A number as pages and reports write it (``1,721``, ``0.835``), not the digits inside a word (``wapi4``).
NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?")


def numbers(text: str) -> set[str]:
    """The number tokens of ``text``, without thousands separators."""
    return {token.replace(",", "") for token in NUMBER.findall(text)}
