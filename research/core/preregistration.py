"""The studies' pre-registrations (``research/preregistered/STUDY.toml``), read once, and a record's entry in one.

Each study's report checks its records against its pre-registration: which records were registered, with what
settings, and which claims they test. The reading and the lookup are the same for every study.
"""

from __future__ import annotations

import functools
import tomllib

from benchmarks.core import records

FOLDER = records.ROOT / "research" / "preregistered"


@functools.cache
def read(study: str) -> dict:
    """The pre-registration of ``study`` (read once: a report asks it for every row)."""
    return tomllib.loads((FOLDER / f"{study}.toml").read_text(encoding="utf-8"))


def entry(plan: dict, record: str, common: tuple[str, ...]) -> dict | None:
    """The entry of ``plan`` for ``record`` (an entry's ``record`` name, else its ``config``), over the study-wide
    settings named in ``common`` (an entry's own setting overrides the study's); None for a record not registered."""
    found = [{key: plan[key] for key in common} | c for c in plan["configs"] if c.get("record", c["config"]) == record]
    return found[0] if found else None
