"""The benchmarks' Ray backend on a real two-node Ray cluster on this machine (loopback addresses).

Checked: deals run on both nodes and give exactly the local backend's games
(tournament, luck study, strength table); a worker killed in mid-deal has its
task run again, and no deal is counted twice or lost; a task that raises
stops the map with its own exception, naming the task; bad input (an
unreachable address, a node without the project, another Ray version) ends
with a clear message and leaves nothing running.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent import futures
from contextlib import contextmanager
from pathlib import Path

import pytest
import ray
from ray import cloudpickle
from ray.cluster_utils import Cluster

from benchmarks.core.matches import play_task, run_tasks
from benchmarks.tournament import run as tournament
from benchmarks.tournament.run import plan_tournament
from parallel import ray_cluster
from parallel.pool import LocalBackend, RayBackend, parallel_map
from parallel.ray_cluster import ray_session
from research import strength
from research.luck import run as luck

ROOT = Path(__file__).resolve().parent.parent

# The helpers below run on the cluster's workers, which cannot import this test module: send them by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def cluster():
    """A head node and a second node, one CPU each (so a batch of deals runs on each at once)."""
    cluster = Cluster(initialize_head=True, connect=False, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster
    finally:
        cluster.shutdown()


def game_records(results) -> list[tuple]:
    return [(g.seats, g.game_seed, g.seating, g.replay, g.scores, g.winners) for r in results for g in r.games]


def our_ray_processes(temp_dir: str) -> list[str]:
    """Command lines of the live processes that belong to a Ray session under ``temp_dir``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if temp_dir in cmdline and int(pid) != os.getpid():
            found.append(cmdline)
    return found


def test_a_tournament_runs_on_both_nodes_and_equals_the_local_backend(cluster):
    plan = plan_tournament("wakanda", ["random", "heuristic"], games=48, seed=5)
    with RayBackend(cluster.address) as backend:
        assert backend.workers == 2 and len(backend.cluster.nodes) == 2
        on_ray = run_tasks(plan.tasks(), progress=False, backend=backend)
        nodes = dict(backend.node_tasks)
        described = backend.describe()
    local = run_tasks(plan.tasks(), processes=1, progress=False)
    assert len(nodes) == 2, f"every node plays deals: {nodes}"
    assert sum(nodes.values()) == len(plan.tasks())
    assert game_records(on_ray) == game_records(local)
    assert "2 workers (CPUs) on 2 node(s); deals played on 2 node(s)" in described
    assert not ray.is_initialized()


def test_the_tournament_command_reports_the_backend_and_the_same_games(cluster, tmp_path, capsys):
    common = [
        "--game",
        "wakanda",
        "--agents",
        "random",
        "heuristic",
        "--games",
        "24",
        "--seed",
        "2",
        "--no-progress",
        "--out",
        str(tmp_path),
    ]
    assert tournament.main(common + ["--backend", "ray", "--ray-address", cluster.address, "--name", "ray"]) == 0
    assert tournament.main(common + ["--processes", "1", "--name", "local"]) == 0
    on_ray, local = ((tmp_path / f"{name}.md").read_text().splitlines() for name in ("ray", "local"))
    ran_on = [line for line in on_ray if line.startswith("- ran on")]
    assert ran_on == [
        f"- ran on the ray backend, the Ray cluster at {cluster.address}: 2 workers (CPUs) on "
        f"2 node(s); deals played on 2 node(s)"
    ]
    assert "- ran on the local backend, 1 process" in local
    differ = [(a, b) for a, b in zip(on_ray, local) if a != b]
    assert all(a.startswith(("Command:", "- ran on", "![")) for a, _ in differ), differ  # every table is the same


def test_luck_and_strength_equal_the_local_backend(cluster):
    plan = luck.plan_study(["wakanda"], deals=4, ismcts_deals=0, replays=2, ismcts_iterations=1, seed=9)
    matchup = next(m for m in strength.MATCHUPS if m.name == "wakanda-heuristic-random")
    with RayBackend(cluster.address) as backend:
        luck_ray = run_tasks(plan.tasks, progress=False, backend=backend)
        strength_ray = strength.run_matchup(matchup, 20, 4, backend.workers, {}, backend)
    luck_local = run_tasks(plan.tasks, processes=1, progress=False)
    strength_local = strength.run_matchup(matchup, 20, 4, 1, {}, LocalBackend(1))
    assert game_records(luck_ray) == game_records(luck_local)
    assert (strength_ray["rate"], strength_ray["others"]) == (strength_local["rate"], strength_local["others"])


def test_a_distillation_run_on_the_cluster_equals_the_local_one(cluster, tmp_path):
    """``training.distill --backend ray``: the teacher's games, the gate and the curve played on the cluster give
    the run the local backend gives (the same shards, fits and gates), and the cost is still counted."""
    from test_distill import TINY, history

    from training.distill.command import main as distill

    local, remote = tmp_path / "local", tmp_path / "ray"
    distill(TINY + ["--generations", "1", "--out", str(local)])
    distill(TINY + ["--generations", "1", "--out", str(remote), "--backend", "ray", "--ray-address", cluster.address])
    assert history(remote) == history(local)
    rows = json.loads((remote / "state.json").read_text())["history"]
    assert rows[1]["cpu_seconds"] > 0


def crash_once(marker: str, deal: int, task):
    """Play ``task``, but the first time deal ``deal`` comes up, kill the worker process in mid-deal."""
    if task.deal == deal and not os.path.exists(marker):
        Path(marker).write_text(str(os.getpid()))
        os._exit(1)  # the worker dies: no result, no exception, as when a machine is lost
    return play_task(task)


def test_a_task_whose_worker_dies_is_run_again_and_counted_once(cluster, tmp_path):
    plan = plan_tournament("wakanda", ["random", "heuristic"], games=24, seed=8)
    tasks = plan.tasks()
    marker = str(tmp_path / "crashed")
    with RayBackend(cluster.address) as backend:
        results = run_tasks(tasks, progress=False, backend=backend, play=functools.partial(crash_once, marker, 5))
    assert os.path.exists(marker), "a worker was killed"
    assert [r.task.deal for r in results] == [t.deal for t in tasks], "each deal once, in order"
    assert game_records(results) == game_records(run_tasks(tasks, processes=1, progress=False))


def refuse_seven(value: int) -> int:
    if value == 7:
        raise ValueError(f"seven is refused, got {value}")
    return value * value


def test_a_failing_task_on_the_cluster_raises_its_own_exception_naming_the_task(cluster):
    with RayBackend(cluster.address) as backend:
        assert parallel_map(refuse_seven, list(range(7)), backend=backend) == [v * v for v in range(7)]
        with pytest.raises(ValueError, match="seven is refused, got 7") as raised:
            parallel_map(refuse_seven, list(range(12)), backend=backend)
    assert "in task 7 of 12 of the parallel map: 7" in raised.value.__notes__


def test_an_unreachable_address_is_refused_at_once(capsys):
    argv = "--game wakanda --agents random heuristic --games 2 --no-progress --backend ray --ray-address 127.0.0.1:1"
    code = tournament.main(argv.split())
    assert code == 2
    assert "cannot reach a Ray cluster at 127.0.0.1:1" in capsys.readouterr().err
    assert not ray.is_initialized()
    for bad in ("nowhere", "host:port", "ray://127.0.0.1:10001"):
        with pytest.raises(ValueError, match="--ray-address"):
            ray_cluster.check_address(bad)


@contextmanager
def grpc_server(answer):
    """A gRPC server on the loopback address that answers every call with ``answer(context)``; yields its
    address. No handler at all (``answer`` None): a server of another kind, answering UNIMPLEMENTED."""
    import grpc

    class Everything(grpc.GenericRpcHandler):
        def service(self, handler_call_details):
            return grpc.unary_unary_rpc_method_handler(lambda request, context: answer(context))

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1), handlers=[Everything()] if answer else [])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)


def test_an_address_where_something_else_answers_is_refused_at_once():
    """Ray's own ray.init would retry for 20 s, then say only that it failed to connect."""
    with grpc_server(None) as address:
        with pytest.raises(ValueError, match=rf"something at {address} answers, but not as a Ray cluster's head"):
            ray_cluster.check_address(address)
    assert not ray.is_initialized()


def test_a_cluster_that_wants_a_token_says_how_to_send_it(monkeypatch, capsys):
    """A head with token authentication refuses a process without RAY_AUTH_MODE=token (Ray sends no token
    to an explicit address otherwise): the message says to copy the token and set the mode."""
    import grpc

    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    with grpc_server(lambda context: context.abort(grpc.StatusCode.UNAUTHENTICATED, "InvalidAuthToken")) as address:
        argv = ["--game", "wakanda", "--agents", "random", "heuristic", "--games", "2", "--backend", "ray"]
        assert tournament.main(argv + ["--ray-address", address, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"the Ray cluster at {address} uses token authentication and this process sends no token" in err
    assert "~/.ray/auth_token" in err and "set RAY_AUTH_MODE=token" in err
    assert not ray.is_initialized()


def test_without_an_address_a_ray_of_its_own_starts_beside_a_running_cluster(cluster):
    """As after 'ray start --head' on this machine: ray.init() would join that cluster, and refuse the CPU count
    of a local Ray; the session starts its own instead (join that cluster with --ray-address auto)."""
    with ray_session(num_cpus=1) as info:
        assert info.address == "local" and info.cpus == 1
        assert ray.get_runtime_context().gcs_address != cluster.address
    assert not ray.is_initialized()


def test_ray_options_need_the_ray_backend():
    with pytest.raises(SystemExit):
        tournament.main(
            ["--game", "wakanda", "--agents", "random", "heuristic", "--games", "2", "--ray-address", "127.0.0.1:6379"]
        )


def test_another_ray_version_is_refused_with_both_versions(cluster, monkeypatch):
    monkeypatch.setattr(ray, "__version__", "2.0.0")  # as a driver with another Ray would report
    with pytest.raises(ValueError, match=r"another Ray or Python version.*Ray: 2\.0\.0"):
        with ray_session(cluster.address):
            pass
    assert not ray.is_initialized()


def test_a_node_without_the_project_is_refused(tmp_path, monkeypatch):
    """A one-node cluster whose Python finds stand-ins that fail to import, as on a machine without drawluck.
    (Ray puts the driver's working directory on its local workers' path, so the driver leaves the checkout.)"""
    monkeypatch.chdir(tmp_path)
    stubs = tmp_path / "stubs"
    for package in ray_cluster.PROJECT_PACKAGES:
        (stubs / package).mkdir(parents=True)
        (stubs / package / "__init__.py").write_text(f"raise ModuleNotFoundError(\"No module named '{package}'\")\n")
    bare = Cluster(
        initialize_head=True,
        connect=False,
        head_node_args={"num_cpus": 1, "include_dashboard": False, "env_vars": {"PYTHONPATH": str(stubs)}},
    )
    try:
        with pytest.raises(
            ValueError,
            match=r"cannot import the project \(ModuleNotFoundError: No module named "
            r"'envs'\): install the project on every node",
        ):
            with RayBackend(bare.address):
                pass
        assert not ray.is_initialized()
    finally:
        bare.shutdown()


def test_a_failed_check_stops_the_local_ray_it_started(monkeypatch):
    monkeypatch.setattr(ray_cluster, "PROJECT_PACKAGES", ray_cluster.PROJECT_PACKAGES + ("drawluck_nowhere",))
    temp_dir = Path(os.environ["RAY_TMPDIR"], "ray")  # where Ray keeps its sessions
    sessions_before = set(temp_dir.glob("session_2*"))
    with pytest.raises(ValueError, match="No module named 'drawluck_nowhere'"):
        with ray_session(num_cpus=1):
            pass
    assert not ray.is_initialized()
    # the sessions this process started (a session's name ends with its driver's pid): under pytest-xdist the
    # other workers start theirs in the same directory
    started = {p for p in set(temp_dir.glob("session_2*")) - sessions_before if p.name.endswith(f"_{os.getpid()}")}
    assert len(started) == 1, "a local Ray was started for the session"
    assert our_ray_processes(str(started.pop())) == [], "and nothing of it is left running"


def ray_start(args: list[str], env: dict) -> subprocess.Popen:
    """``ray start ARGS --block`` in a process group of its own, on the loopback address: stopping the group
    stops this node alone (``ray stop`` would stop every Ray on the machine)."""
    command = [str(Path(sys.executable).parent / "ray"), "start", *args, "--node-ip-address", "127.0.0.1"]
    return subprocess.Popen(
        command + ["--num-cpus", "1", "--block"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


@pytest.mark.slow
def test_the_documented_two_node_commands_with_a_token(tmp_path):
    """docs/ray.md's cluster, both nodes on this machine: a head with token authentication, a worker given
    its token and RAY_AUTH_MODE=token, and a command run with RAY_ADDRESS. Without RAY_AUTH_MODE=token the
    command is refused at once, saying so; with it, deals are played on both nodes."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    temp_dir = tempfile.mkdtemp(prefix="drl-2n-")  # both nodes' own (short: Ray's socket paths have a limit)
    env = {**os.environ, "RAY_AUTH_TOKEN": "0123456789abcdef" * 2, "RAY_ADDRESS": address, "RAY_TMPDIR": temp_dir}
    env.pop("RAY_AUTH_MODE", None)
    env.pop(
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None
    )  # conftest's 0 keeps a single node; a cluster needs Ray's default
    token = {**env, "RAY_AUTH_MODE": "token"}
    command = [sys.executable, "-m", "benchmarks.tournament", "--game", "wakanda", "--agents", "random", "heuristic"]
    command += ["--games", "8", "--backend", "ray", "--no-progress", "--out", str(tmp_path)]
    nodes = [ray_start(["--head", "--port", address.rpartition(":")[2]], token)]
    try:
        check = [sys.executable, "-c", f"from parallel.ray_cluster import check_address; check_address({address!r})"]
        for _ in range(120):  # the head is up when it answers
            if subprocess.run(check, env=token, cwd=ROOT, capture_output=True).returncode == 0:
                break
            time.sleep(1)
        nodes.append(ray_start(["--address", address], token))
        refused = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert refused.returncode == 2 and "this process sends no token" in refused.stderr
        assert "set RAY_AUTH_MODE=token" in refused.stderr
        for _ in range(30):  # until the worker node has joined
            done = subprocess.run(command, env=token, cwd=ROOT, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr[-2000:]
            if "on 2 node(s); deals played on 2 node(s)" in (tmp_path / "tournament_wakanda.md").read_text():
                break
            time.sleep(1)
        else:
            report = (tmp_path / "tournament_wakanda.md").read_text()
            pytest.fail(f"the worker node never played a deal: {[x for x in report.splitlines() if 'ran on' in x]}")
    finally:
        for node in reversed(nodes):
            os.killpg(node.pid, signal.SIGTERM)
            node.wait(timeout=120)
        left = our_ray_processes(temp_dir)
        shutil.rmtree(temp_dir, ignore_errors=True)
    assert left == [], "nothing of either node is left running"
