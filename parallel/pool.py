"""The one parallel map: a list of tasks run in worker processes of this machine or on a Ray cluster.

Training (the warm start's games, expert iteration's self-play and gate) and
every benchmark hand their work here as plain picklable callables and tasks,
each task a pure function of its own seeds. So where a task runs changes how
fast a run goes, never what it finds: :func:`parallel_map` returns
``[work(t) for t in tasks]``, in task order, whatever the backend and the
number of workers.

- :class:`LocalBackend`: a process pool on this machine (``--processes``; 1
  runs the tasks here, in this process).
- :class:`RayBackend`: one Ray task per small chunk of tasks, spread over
  the nodes of a cluster (``--backend ray --ray-address ADDRESS``; no address
  starts a local Ray; :mod:`parallel.ray_cluster` joins and checks it). A
  chunk whose worker or node dies is run again by Ray (``MAX_RETRIES``); each
  chunk's results are taken exactly once, so no task is counted twice or lost.

A task that raises stops the map with its own exception (its type kept), with
a note naming the task (its index and what it was), whichever backend ran it.

:func:`chunks` is the one way work is cut into tasks of similar size (items
dealt round-robin, so that slow ones spread evenly), for callers whose task
does some setup per chunk and for the Ray backend's chunks.

The benchmarks' command-line options are added by :func:`add_arguments` and
read by :func:`from_args`; a backend is a context manager (Ray is joined on
entry and left on exit, whatever happens).
"""

from __future__ import annotations

import argparse
import functools
import math
import multiprocessing
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from envs.core.engine import shown

BACKENDS = ("local", "ray")
#: Local worker processes when --processes is not given.
DEFAULT_PROCESSES = 2
#: Tasks per worker: enough chunks that every worker stays busy to the end (slow tasks spread out).
TASKS_PER_WORKER = 4
#: Ray retries a chunk this many times when its worker process or node dies (not when a task raises).
MAX_RETRIES = 3
#: Tasks in one Ray chunk at most, so that a retried chunk repeats little.
MAX_BATCH = 16


def chunks(items: Sequence, workers: int, max_size: int | None = None) -> list[list]:
    """``items`` dealt round-robin into ``workers * TASKS_PER_WORKER`` chunks (more if a chunk would hold
    more than ``max_size``), empty ones left out: item ``i`` in chunk ``i % count``, so that slow items
    spread evenly over the workers."""
    count = workers * TASKS_PER_WORKER
    if max_size is not None:
        count = max(count, math.ceil(len(items) / max_size))
    return [chunk for chunk in (list(items[i::count]) for i in range(count)) if chunk]


def joined(parts: Sequence[dict]) -> dict:
    """The results of chunked tasks that each return named numpy arrays, as one: each name's arrays
    concatenated in task order."""
    import numpy as np

    return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}


def _init_worker() -> None:
    """One process per core: keep torch (if a task loads it) from starting a thread pool in each.
    Importing torch here would cost seconds per worker, so only an already loaded torch is told."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def run_task(work: Callable, count: int, indexed: tuple[int, Any]) -> Any:
    """``work(task)`` for ``(index, task)``; an exception leaves with a note naming the task (the note
    travels with the exception from a worker process, whose type is kept)."""
    index, task = indexed
    try:
        return work(task)
    except Exception as error:
        error.add_note(f"in task {index} of {count} of the parallel map: {shown(task, 300)}")
        raise


class LocalBackend:
    """Run on ``processes`` processes of this machine (1: in this process)."""

    name = "local"

    def __init__(self, processes: int = DEFAULT_PROCESSES):
        if type(processes) is not int or processes < 1:
            raise ValueError(f"--processes must be a positive int, got {shown(processes)}")
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

    def map(self, work: Callable, tasks: Sequence, done: Callable[[int], None]) -> list:
        """``[work(t) for t in tasks]``, in that order; ``done(k)`` after every k finished tasks."""
        call = functools.partial(run_task, work, len(tasks))
        if self.processes == 1:
            results = []
            for indexed in enumerate(tasks):
                results.append(call(indexed))
                done(1)
            return results
        # fork starts workers in a blink; spawn (fresh interpreters) once torch is loaded, whose
        # thread pools do not survive a fork.
        method = "spawn" if "torch" in sys.modules else "fork"
        with multiprocessing.get_context(method).Pool(self.processes, initializer=_init_worker) as pool:
            results = []
            for result in pool.imap(call, enumerate(tasks), chunksize=1):
                results.append(result)
                done(1)
        return results


def run_chunk(work: Callable, count: int, chunk: Sequence[tuple[int, Any]]) -> tuple[list, str, float]:
    """A Ray task: run a chunk of ``(index, task)``; returns the results, the id of the node that ran them
    and the CPU seconds they took (how much of a core the worker really had shows in the benchmarks)."""
    import ray

    _init_worker()
    start = time.process_time()
    results = [run_task(work, count, indexed) for indexed in chunk]
    return results, ray.get_runtime_context().get_node_id(), time.process_time() - start


class RayBackend:
    """Run on a Ray cluster (``address`` "auto" or HOST:PORT) or on a local Ray (``address`` None, with
    ``num_cpus`` workers, default every core). Entering joins the cluster and checks every node."""

    name = "ray"

    def __init__(self, address: str | None = None, num_cpus: int | None = None):
        self.address, self.num_cpus = address, num_cpus
        self.cluster = None
        self.node_tasks: Counter = Counter()  # node id -> tasks it ran, over this session
        self.cpu_seconds = 0.0  # the workers' CPU time running them
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

    def map(self, work: Callable, tasks: Sequence, done: Callable[[int], None]) -> list:
        """``[work(t) for t in tasks]`` as Ray tasks of a few tasks each (:func:`chunks`), spread over the
        nodes; the results in task order, each taken once."""
        if self.cluster is None:
            raise RuntimeError("a RayBackend is used inside 'with backend:'")
        import ray

        batches = chunks(list(enumerate(tasks)), self.workers, MAX_BATCH)
        remote = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False, scheduling_strategy="SPREAD")(
            run_chunk
        )
        index = {remote.remote(work, len(tasks), batch): b for b, batch in enumerate(batches)}
        results: list = [None] * len(tasks)
        pending = list(index)
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for ref in ready:
                    ran, node, cpu = self._get(ray, ref, batches[index[ref]])
                    for (i, _), result in zip(batches[index[ref]], ran):
                        results[i] = result
                    self.node_tasks[node] += len(ran)
                    self.cpu_seconds += cpu
                    done(len(ran))
        finally:
            for ref in pending:  # an error above: stop what is still queued
                ray.cancel(ref, force=True)
        return results

    @staticmethod
    def _get(ray, ref, batch: list[tuple[int, Any]]) -> tuple[list, str, float]:
        """A chunk's results; a task's own exception as it was raised (with its note), a lost chunk as a
        RuntimeError."""
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as error:
            if isinstance(error.cause, Exception):
                raise error.cause from None
            raise
        except ray.exceptions.RayError as error:
            raise RuntimeError(
                f"tasks {batch[0][0]}, ... ({shown(batch[0][1], 200)}, ...) could not be run on the cluster "
                f"after {MAX_RETRIES} retries: {error}"
            ) from None


Backend = LocalBackend | RayBackend


def parallel_map(
    work: Callable,
    tasks: Sequence,
    processes: int = DEFAULT_PROCESSES,
    backend: Backend | None = None,
    progress: bool = False,
    desc: str = "tasks",
    unit: str = "task",
) -> list:
    """``[work(t) for t in tasks]`` on ``backend`` (default: ``processes`` local processes), results in task
    order; ``progress``: a progress bar (``desc``, counting ``unit``) as tasks finish."""
    from tqdm import tqdm

    backend = backend or LocalBackend(processes)
    with tqdm(total=len(tasks), desc=desc, unit=unit, disable=not progress, dynamic_ncols=True) as bar:
        return backend.map(work, tasks, bar.update)


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
