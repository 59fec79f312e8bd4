"""A plain install (no ``ray`` extra) keeps working: nothing outside the Ray backend and the RLlib trainer
imports Ray, and asking for them says how to install it."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run_without_ray(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter in which ``import ray`` fails, as where Ray is not installed."""
    blocker = "import sys; sys.modules['ray'] = None  # import ray -> ImportError\n"
    return subprocess.run(
        [sys.executable, "-c", blocker + textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )


def test_the_project_imports_and_plays_without_ray():
    done = run_without_ray("""
        import agents, agents.rllib_agent, training.rllib.policy, training.rllib.league
        import parallel.ray_cluster, parallel.pool
        import research.luck.run, research.strength, benchmarks.tournament.run
        from benchmarks.tournament.run import plan_tournament, play, summarize
        plan = plan_tournament("wakanda", ["random", "heuristic"], 4)
        summary = summarize(plan, play(plan, processes=1, progress=False))
        assert len(summary.games) == 4 and not summary.failures
        assert "ray" not in [m for m in sys.modules if sys.modules[m] is not None]
        print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_ray_backend_says_how_to_install_ray():
    done = run_without_ray("""
        from benchmarks.tournament import run as tournament
        sys.exit(tournament.main(["--game", "wakanda", "--agents", "random", "heuristic", "--games", "2",
                                  "--backend", "ray", "--no-progress"]))
    """)
    assert done.returncode == 2
    assert "the ray backend needs Ray: pip install -e '.[ray]' in the checkout" in done.stderr
