"""Compiled kernels: the one way the batched engines compile their per-game loops (numba).

Why: Wakanda's and Samurai's rules branch per game, and whole-array numpy pays for every branch in
every game, with a fixed cost per numpy call that dominates over arrays of a few thousand small rows.
A numba kernel loops over the games of a batch and runs each game's branch only, in machine code.
``cache=True`` keeps the compiled code beside the source (``__pycache__``), so only the first run on a
machine pays the compile time (``benchmarks/results/batch.md`` reports it); ``nogil`` lets threads of
one process share the kernels. No ``fastmath``: every game must equal the per-game engine's exactly.

Where no cache can be written (a sealed agent's host runs as ``nobody`` in a tree it may only read, with no
home folder), numba refuses ``cache=True`` at decoration; the kernel is then compiled in memory at its first
call instead, so that importing the engines never fails for want of a cache.

A cached kernel is stamped with every kernel file's contents, not its own file's alone (numba's stamp): its machine
code holds the code of every kernel it calls, so a change to a callee in another file must recompile it.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path

import numba


def kernel(function: Callable) -> Callable:
    """``function`` compiled by numba in nopython mode, cached on disk where a cache can be written, releasing
    the GIL."""
    return _compiled(function)


def inline_kernel(function: Callable) -> Callable:
    """A :func:`kernel` that numba also compiles into each kernel calling it (``inline="always"``). Why: a call
    between kernels costs an atomic reference count per array it is given, and a helper called once per game
    with the batch's named tuple of arrays (Samurai's end of a turn: 27 of them) spent more there than in its
    rules; inlined, the counts cancel out."""
    return _compiled(function, inline="always")


def _compiled(function: Callable, **options) -> Callable:
    try:
        dispatcher = numba.njit(cache=True, nogil=True, **options)(function)
    except RuntimeError as error:  # numba's words when no cache folder is writable ("no locator available")
        if "no locator available" not in str(error):
            raise
        return numba.njit(nogil=True, **options)(function)
    index = dispatcher._cache._cache_file  # numba 0.68's IndexDataCacheFile: the stamp its index is checked by
    index._source_stamp = (index._source_stamp, kernel_sources())
    return dispatcher


@functools.cache
def kernel_sources() -> str:
    """A hash of every source file of ``envs`` and ``agents`` that compiles kernels (a file naming ``kernel``)."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for path in sorted([*root.glob("envs/**/*.py"), *root.glob("agents/**/*.py")]):
        text = path.read_bytes()
        if b"kernel" in text:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + text)
    return digest.hexdigest()
