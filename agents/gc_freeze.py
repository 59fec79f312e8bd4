"""Keep Python's garbage collector out of a search's time budget.

A full collection walks every object the collector tracks. Importing torch alone
brings about 160,000 of them, so in a process that has loaded a model (or the
guided search, which imports torch) one full collection took about a tenth of a
CPU second here: all of a 0.1 s budget, and the cause of every move that overran twice its
budget in the Samurai thinking-time curves (``benchmarks/results/move_times.md``).
The objects alive when a time-budgeted search is made are mostly the libraries'
and live as long as the process, so :func:`freeze_long_lived` moves them into
the collector's permanent generation (``gc.freeze``): later collections walk only
what was made since, and a search's moves stay near their budget.

Frozen objects are still freed when nothing refers to them; only a reference
cycle among them would never be collected. So the collector first collects
(nothing unreachable is frozen), and freezes again only when modules were
imported since the last time, so that a long-lived process (the web server,
which makes an opponent for every game) freezes a bounded number of times.
"""

from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
_modules_when_frozen = 0


def freeze_long_lived() -> bool:
    """Collect, then freeze every tracked object, if modules were imported since the last freeze (or
    none was made); returns whether it froze. Called when a search on a time budget is made, before its clock runs."""
    global _modules_when_frozen
    with _lock:
        if len(sys.modules) <= _modules_when_frozen:
            return False
        gc.collect()
        gc.freeze()
        _modules_when_frozen = len(sys.modules)
        return True
