"""Connecting to Ray for the benchmarks and RLlib training: one place for the checks and the clean-up.

:func:`ray_session` starts a local Ray (no address) or joins a running
cluster (``"auto"``, ``"HOST:PORT"``, or ``RAY_ADDRESS``), then checks before
anything runs that every node can import this very project: a probe task on
each node imports ``envs``, ``agents`` and ``benchmarks`` and hashes their
sources, so a node without the project, or with another version of it (whose
deals would not match the local backend), is refused by name. Every failure
is a ValueError with a plain message (unreachable address, no cluster, another
Ray or Python version, a node without the project) and leaves nothing
running: a Ray started here is shut down, a cluster joined is left as found.

An address is asked first whether it is a Ray cluster's head, in one short
RPC to its GCS (:func:`check_address`): an address where nothing listens,
where something else answers, or whose cluster wants a token this process
does not send, is refused in well under a second with what to do, where
``ray.init`` would retry for 20 s and then say only that it failed. Ray
2.60 sends a token to an explicit address only under ``RAY_AUTH_MODE=token``
(a node started with ``ray start --address`` too): the message says so.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from envs.core.engine import shown

#: The project's packages: every node must import them, with the same sources as here.
PROJECT_PACKAGES = ("envs", "agents", "parallel", "training", "benchmarks")
#: Seconds to wait for the probe on every node (nodes busy with other work may take a while to start it).
PROBE_TIMEOUT_S = 120.0
#: Seconds to wait for the cluster's head to answer one RPC before calling it unreachable.
CONNECT_TIMEOUT_S = 5.0
#: What Ray needs to send its token to an explicit address (it reads the token only in this mode).
TOKEN_HINT = (
    "copy the head node's ~/.ray/auth_token to this machine (or set RAY_AUTH_TOKEN to its contents) and set "
    "RAY_AUTH_MODE=token: Ray sends the token to an explicit address only in that mode"
)
INSTALL_HINT = "install the project on every node: pip install -e '.[ray]' from a checkout of the same version as here"


@dataclass(frozen=True)
class ClusterInfo:
    """What the reports say about where things ran."""

    address: str  # "local" for a Ray started here
    nodes: tuple[str, ...]  # node ids of the alive nodes with CPUs
    cpus: int  # CPUs in the cluster: the number of workers a benchmark runs at once

    def describe(self) -> str:
        where = "a local Ray" if self.address == "local" else f"the Ray cluster at {self.address}"
        return f"{where}: {self.cpus} worker{'s' if self.cpus > 1 else ''} (CPUs) on {len(self.nodes)} node(s)"


def require_ray():
    """The ray module, or a ValueError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ValueError("the ray backend needs Ray: pip install -e '.[ray]' in the checkout") from None
    return ray


def project_fingerprint(root: str | None = None) -> str:
    """A hash of the project's Python sources (``PROJECT_PACKAGES``): equal on two machines when they run
    the same code, so they deal and play the same games."""
    if root is None:
        root = str(Path(__file__).resolve().parent.parent)
    digest = hashlib.sha256()
    for package in PROJECT_PACKAGES:
        for path in sorted(Path(root, package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def check_address(address: str) -> str:
    """``"auto"`` or ``"HOST:PORT"`` of a Ray cluster's head that accepts this process; ValueError otherwise,
    saying what to do (a quick refusal, not Ray's 20 s retry loop)."""
    if not isinstance(address, str) or not address:
        raise ValueError(f"--ray-address must be 'auto' or HOST:PORT, got {shown(address)}")
    if address == "auto":
        return address
    if address.startswith("ray://"):
        raise ValueError(
            f"--ray-address {shown(address)}: Ray Client addresses (ray://) are not supported; run the "
            f"command on a node of the cluster with --ray-address HOST:PORT (the head's GCS port)"
        )
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(
            f"--ray-address must be 'auto' or HOST:PORT (the head node's port, 6379 by default), got {shown(address)}"
        )
    _ask_head(address, host, port)
    return address


def _ask_head(address: str, host: str, port: str) -> None:
    """One RPC to the GCS at ``address`` (its cluster id), with this process's token if Ray would send one;
    a ValueError unless a Ray head answers it."""
    import grpc
    from ray._private.grpc_utils import init_grpc_channel
    from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc

    channel = init_grpc_channel(address)  # Ray's own channel: its TLS setting and its token, if it sends one
    try:
        gcs = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
        gcs.GetClusterId(gcs_service_pb2.GetClusterIdRequest(), timeout=CONNECT_TIMEOUT_S)
    except grpc.RpcError as error:
        code, details = error.code(), " ".join(str(error.details()).split())
        if code == grpc.StatusCode.UNAUTHENTICATED:
            sent = os.environ.get("RAY_AUTH_MODE", "").lower() == "token"
            raise ValueError(
                f"the Ray cluster at {address} uses token authentication and "
                f"{'refused the token this process sent' if sent else 'this process sends no token'}: {TOKEN_HINT}"
            ) from None
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise ValueError(
                f"cannot reach a Ray cluster at {address}: {shown(details, 200)}. Start one with "
                f"'ray start --head --port {port}' on {host}, or check the address"
            ) from None
        raise ValueError(
            f"something at {address} answers, but not as a Ray cluster's head does ({code.name}: "
            f"{shown(details, 200)}): give the head node's port (6379 by default)"
        ) from None
    finally:
        channel.close()


def _probe(packages: tuple[str, ...]) -> dict:
    """Runs on a node: can it import the project, and is it the same code? Self-contained, as it is sent
    by value (the node may lack this module), and never raises."""
    import importlib
    import platform

    import ray

    out = {
        "node": ray.get_runtime_context().get_node_id(),
        "host": platform.node(),
        "python": platform.python_version(),
        "ray": ray.__version__,
        "error": None,
        "fingerprint": None,
    }
    try:
        for package in packages:
            importlib.import_module(package)
        out["fingerprint"] = importlib.import_module("parallel.ray_cluster").project_fingerprint()
    except Exception as error:
        out["error"] = f"{type(error).__name__}: {error}"
    return out


def _alive_cpu_nodes(ray) -> list[dict]:
    return [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]


def check_nodes(ray, address: str) -> ClusterInfo:
    """Run the probe once on every alive node with CPUs; ValueError naming the first node that cannot run
    this project's code."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = _alive_cpu_nodes(ray)
    if not nodes:
        raise ValueError(f"the Ray cluster at {address} has no node with CPUs to run on")
    # A copy of _probe that no module holds, so that Ray's cloudpickle sends its code, not its name.
    by_value = types.FunctionType(_probe.__code__, {"__builtins__": builtins}, "drawluck_probe")
    probe = ray.remote(num_cpus=1, max_retries=0)(by_value)
    refs = [
        probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote(
            PROJECT_PACKAGES
        )
        for n in nodes
    ]
    try:
        reports = ray.get(refs, timeout=PROBE_TIMEOUT_S)
    except ray.exceptions.GetTimeoutError:
        raise ValueError(
            f"the Ray cluster at {address} did not run a probe task on every node within "
            f"{PROBE_TIMEOUT_S:.0f} s (are its CPUs busy?)"
        ) from None
    except ray.exceptions.RayError as error:
        raise ValueError(f"the Ray cluster at {address} could not run a probe task: {shown(str(error), 300)}") from None
    here = project_fingerprint()
    for report in reports:
        where = f"node {report['node'][:12]} ({report['host']}) of the Ray cluster at {address}"
        if report["error"]:
            raise ValueError(f"{where} cannot import the project ({report['error']}): {INSTALL_HINT}")
        if report["ray"] != ray.__version__ or report["python"].split(".")[:2] != sys.version.split(".")[:2]:
            raise ValueError(
                f"{where} runs Ray {report['ray']} on Python {report['python']}, this process Ray "
                f"{ray.__version__} on Python {sys.version.split()[0]}: use the same versions everywhere"
            )
        if report["fingerprint"] != here:
            raise ValueError(
                f"{where} runs another version of the project (sources {report['fingerprint']}, "
                f"here {here}), so its games would differ: {INSTALL_HINT}"
            )
    return ClusterInfo(address, tuple(n["NodeID"] for n in nodes), int(sum(n["Resources"]["CPU"] for n in nodes)))


def _init(ray, address: str | None, num_cpus: int | None) -> None:
    """``ray.init`` with its failures turned into ValueErrors."""
    quiet = dict(include_dashboard=False, log_to_driver=False, logging_level="ERROR", configure_logging=True)
    try:
        if address is None:  # "local": a Ray of its own, even where 'ray start' runs one (join that with "auto")
            ray.init(address="local", num_cpus=num_cpus, **quiet)
        else:
            ray.init(address=address, log_to_driver=False, logging_level="ERROR")
    except ConnectionError as error:
        raise ValueError(
            f"cannot connect to a Ray cluster at {address}: {' '.join(str(error).split())} "
            f"(start one with 'ray start --head')"
        ) from None
    except RuntimeError as error:
        if "Version mismatch" in str(error):
            raise ValueError(
                f"the Ray cluster at {address} runs another Ray or Python version than this process "
                f"({' '.join(str(error).split())}); install ray=={ray.__version__} on Python "
                f"{sys.version.split()[0]} everywhere, or start the cluster with this one"
            ) from None
        where = address or "a local instance"
        raise ValueError(f"cannot start or join Ray at {where}: {shown(str(error), 300)}") from None


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[ClusterInfo]:
    """Start a local Ray (``address`` None; ``num_cpus`` workers, default all cores; a Ray of its own even
    where a cluster started with ``ray start`` runs) or join the cluster at ``address`` (``"auto"``,
    ``"HOST:PORT"``); check every node; always disconnect (and stop a local Ray).

    A Ray started here listens on the loopback address only (nothing is reachable from outside), unless
    the caller already imported Ray with other settings; Ray's usage reports stay off unless
    ``RAY_USAGE_STATS_ENABLED=1`` is set.
    """
    if num_cpus is not None and (type(num_cpus) is not int or num_cpus < 1):
        raise ValueError(f"num_cpus must be a positive int, got {shown(num_cpus)}")
    if address is None and "ray" not in sys.modules:
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # a local Ray binds to 127.0.0.1
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # Ray's usage reports: off unless the user turns them on
    ray = require_ray()
    if address is not None:
        check_address(address)
    if ray.is_initialized():
        raise ValueError("Ray is already initialized in this process: finish that session first")
    try:
        _init(ray, address, num_cpus)
        yield check_nodes(ray, address or "local")
    finally:
        ray.shutdown()
