"""Sealed agents: a rated user's agent plays from a process of its own (``drawluck-bench v2``).

:mod:`benchmarks.core.sealed.host` runs in that process, :mod:`benchmarks.core.sealed.referee` in the referee's;
:mod:`benchmarks.core.sealed.isolation` keeps the first out of the second's memory;
``docs/benchmark.md`` ("What the sealed agent protects") says exactly what this does and does not protect.
"""
