"""Where the benchmarks play their deals: local processes, or a Ray cluster. The one place for the choice.

Every benchmark's unit of work is a pure function of its task (a deal played
in every seating, with seeds fixed by the run's seed), so the backend changes
how fast a run goes, never what it finds: the same seed gives the same games,
in the same order, on either backend.

- :class:`LocalBackend`: a process pool on this machine (``--processes``).
- :class:`RayBackend`: one Ray task per small batch of deals, spread over the
  nodes of a cluster (``--backend ray --ray-address ADDRESS``; no address
  starts a local Ray). A task whose worker or node dies is run again by Ray
  (``MAX_RETRIES``); each task's result is taken exactly once, in task order,
  so no deal is counted twice or lost.

The command-line options are added by :func:`add_arguments` and read by
:func:`from_args`; a backend is a context manager (Ray is joined on entry and
left on exit, whatever happens).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

BACKENDS = ("local", "ray")
#: Ray retries a task this many times when its worker process or node dies (not when the task raises:
#: the benchmarks' play functions record their own failures).
MAX_RETRIES = 3
#: Deals per Ray task: enough tasks for every worker to stay busy to the end (``TASKS_PER_WORKER`` each),
#: at most ``MAX_BATCH`` deals in one, so that a retried task repeats little.
TASKS_PER_WORKER = 4
MAX_BATCH = 16


def _init_worker() -> None:
    """One process per core: keep torch (if a model agent loads it) from starting a thread pool in each.
    Importing torch here would cost seconds per worker, so only an already loaded torch is told."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


class LocalBackend:
    """Play on ``processes`` processes of this machine (1: in this process)."""

    name = "local"

    def __init__(self, processes: int = 2):
        if type(processes) is not int or processes < 1:
            raise ValueError(f"--processes must be a positive int, got {processes!r}")
        self.processes = processes

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    @property
    def workers(self) -> int:
        return self.processes

    def describe(self) -> str:
        return f"local backend, {self.processes} process{'es' if self.processes > 1 else ''}"

    def map(self, play: Callable, tasks: Sequence, done: Callable[[int], None]) -> list:
        """``[play(t) for t in tasks]``, in that order; ``done(k)`` after every k finished tasks."""
        if self.processes == 1:
            results = []
            for task in tasks:
                results.append(play(task))
                done(1)
            return results
        # fork starts workers in a blink; spawn (fresh interpreters) once torch is loaded, whose
        # thread pools do not survive a fork.
        method = "spawn" if "torch" in sys.modules else "fork"
        with multiprocessing.get_context(method).Pool(self.processes, initializer=_init_worker) as pool:
            results = []
            for result in pool.imap(play, tasks, chunksize=1):
                results.append(result)
                done(1)
        return results


def play_batch(play: Callable, batch: Sequence) -> tuple[list, str, float]:
    """A Ray task: play a batch of tasks; returns the results, the id of the node that played them and the
    CPU seconds it took (how much of a core the worker really had shows in the benchmarks)."""
    import ray

    _init_worker()
    start = time.process_time()
    results = [play(task) for task in batch]
    return results, ray.get_runtime_context().get_node_id(), time.process_time() - start


class RayBackend:
    """Play on a Ray cluster (``address`` "auto" or HOST:PORT) or on a local Ray (``address`` None, with
    ``num_cpus`` workers, default every core). Entering joins the cluster and checks every node."""

    name = "ray"

    def __init__(self, address: str | None = None, num_cpus: int | None = None):
        self.address, self.num_cpus = address, num_cpus
        self.cluster = None
        self.node_tasks: Counter = Counter()  # node id -> tasks (deals) it played, over this session
        self.cpu_seconds = 0.0  # the workers' CPU time playing them
        self._session = None

    def __enter__(self) -> RayBackend:
        from parallel.ray_cluster import ray_session

        self._session = ray_session(self.address, self.num_cpus)
        self.cluster = self._session.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.__exit__(*exc)

    @property
    def workers(self) -> int:
        return self.cluster.cpus

    def describe(self) -> str:
        used = f"; deals played on {len(self.node_tasks)} node(s)" if self.node_tasks else ""
        return f"ray backend, {self.cluster.describe()}{used}"

    def batch_size(self, count: int) -> int:
        return max(1, min(MAX_BATCH, math.ceil(count / (TASKS_PER_WORKER * self.workers))))

    def map(self, play: Callable, tasks: Sequence, done: Callable[[int], None]) -> list:
        """``[play(t) for t in tasks]`` as Ray tasks of a few deals each, spread over the nodes; the results
        in task order, each taken once."""
        if self.cluster is None:
            raise RuntimeError("a RayBackend is used inside 'with backend:'")
        import ray

        size = self.batch_size(len(tasks))
        batches = [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]
        remote = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False, scheduling_strategy="SPREAD")(
            play_batch
        )
        index = {remote.remote(play, batch): b for b, batch in enumerate(batches)}
        results: list[list | None] = [None] * len(batches)
        pending = list(index)
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for ref in ready:
                    b = index[ref]
                    try:
                        played, node, cpu = ray.get(ref)
                    except ray.exceptions.RayError as error:
                        raise RuntimeError(
                            f"deals {batches[b][0]!r}.. could not be played on the cluster after "
                            f"{MAX_RETRIES} retries: {error}"
                        ) from None
                    results[b] = played
                    self.node_tasks[node] += len(played)
                    self.cpu_seconds += cpu
                    done(len(played))
        finally:
            for ref in pending:  # an error above: stop what is still queued
                ray.cancel(ref, force=True)
        flat = [result for batch in results for result in batch]
        if len(flat) != len(tasks):  # a guard on the bookkeeping above: every task exactly once
            raise RuntimeError(f"the cluster returned {len(flat)} results for {len(tasks)} tasks")
        return flat


Backend = LocalBackend | RayBackend


#: Local worker processes when --processes is not given.
DEFAULT_PROCESSES = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--backend``, ``--ray-address`` and ``--processes``, the same for every benchmark."""
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="local: a process pool here; ray: Ray tasks on a cluster",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="with --backend ray: the cluster to join, 'auto' (a cluster started on this machine "
        "with 'ray start') or HOST:PORT (default: $RAY_ADDRESS, else a local Ray for the run)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        help=f"local backend: worker processes (default: {DEFAULT_PROCESSES}); ray backend: the CPUs "
        f"of a local Ray (default: every core; a cluster brings its own)",
    )


def from_args(args: argparse.Namespace) -> Backend:
    """The backend the options ask for (not yet entered); ValueError on a contradiction."""
    if args.processes is not None and args.processes < 1:
        raise ValueError(f"--processes must be a positive int, got {args.processes}")
    if args.backend == "local":
        if args.ray_address is not None:
            raise ValueError("--ray-address is an option of --backend ray")
        return LocalBackend(args.processes or DEFAULT_PROCESSES)
    address = args.ray_address or os.environ.get("RAY_ADDRESS") or None
    if address is not None and args.processes is not None:
        raise ValueError("--processes sets the CPUs of a local Ray; a cluster at --ray-address brings its own")
    return RayBackend(address, args.processes)
