"""Compiled kernels: the one way the batched engines compile their per-game loops (numba).

Why: Wakanda's and Samurai's rules branch per game, and whole-array numpy pays for every branch in
every game, with a fixed cost per numpy call that dominates over arrays of a few thousand small rows.
A numba kernel loops over the games of a batch and runs each game's branch only, in machine code.
``cache=True`` keeps the compiled code beside the source (``__pycache__``), so only the first run on a
machine pays the compile time (``benchmarks/results/batch.md`` reports it); ``nogil`` lets threads of
one process share the kernels. No ``fastmath``: every game must equal the per-game engine's exactly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numba


def kernel(function: Callable) -> Callable:
    """``function`` compiled by numba in nopython mode, cached on disk, releasing the GIL."""
    return numba.njit(cache=True, nogil=True)(function)


def kernel_calling(*modules: ModuleType) -> Callable[[Callable], Callable]:
    """:func:`kernel`, for a kernel that calls the kernels of other files (``modules``): its cache is kept only while
    those files, too, are as they were. Why: numba stamps a cached kernel with its own file alone, and its machine
    code holds the code of every kernel it calls, so a change to a callee in another file would go unnoticed. The
    stamp numba checks (a hash of the source file, numba's ``IndexDataCacheFile``) gets the other files' hashes."""

    def compiled(function: Callable) -> Callable:
        dispatcher = kernel(function)
        index = dispatcher._cache._cache_file
        files = (hashlib.sha256(Path(module.__file__).read_bytes()).hexdigest() for module in modules)
        index._source_stamp = (index._source_stamp, *files)
        return dispatcher

    return compiled
