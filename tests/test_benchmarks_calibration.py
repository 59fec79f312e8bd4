"""Budgets that mean the same on every machine (benchmarks/calibration.py): the scaling, the measurement, the
record's schema, ``verify`` refusing a missing, given or forged calibration, and ``--calibration-factor``."""

import copy
import math
import re

import numpy as np
import pytest

from benchmarks import rate
from benchmarks.core import calibration, records, user_agents
from benchmarks.core.sealed.host import Host
from envs.games import make_game

MACHINE = calibration.Calibration(0.5, (calibration.REFERENCE_SPEED / 2,))  # half the reference's speed


def rating_run(machine: calibration.Calibration = MACHINE, reference: float = 0.3) -> dict:
    """A rating run's header on ``machine`` with one agent's budget scaled as ``rate`` scales it."""
    run = records.new_run(["python", "-m", "test"], {"x": {"name": "heuristic", "options": {}}})
    budget = calibration.scaled(reference, machine.factor)
    return run | {
        "calibration": calibration.entry(machine),
        "reference_budgets": {"x": reference},
        "budgets": {"x": budget},
    }


def test_a_slower_machine_gets_more_cpu_seconds_for_the_same_reference_budget():
    assert calibration.scaled(1.0, 0.5) == 2.0
    assert calibration.scaled(0.3, 2.0) == 0.15
    assert calibration.scaled(0.05, 1.0) == 0.05
    assert rating_run()["budgets"] == {"x": 0.6}


def test_the_measurement_is_the_fastest_round_over_the_reference_speed():
    measured = calibration.measure(rounds=2)
    assert len(measured.rounds) == 2 and all(r > 0 for r in measured.rounds)
    assert math.isclose(measured.factor, max(measured.rounds) / calibration.REFERENCE_SPEED)
    assert calibration.problems(rating_run(measured)) == []
    assert calibration.entry(measured)["source"] == "measured"


def test_the_workload_is_fixed():
    first, again = calibration.positions(), calibration.positions()
    assert len(first) == calibration.POSITIONS * len(calibration.CONFIGS)

    def drawn(views):
        return [(view.player, view.legal_actions, view.sample_determinization(np.random.default_rng(0)).to_dict())
                for _, view in views]  # fmt: skip

    assert drawn(first) == drawn(again)


def test_the_schema_wants_a_calibration_with_every_budget(tmp_path):
    records.check_lines([rating_run()], "ok")
    for change, field in [
        (lambda run: run.pop("calibration"), "the line: 'calibration' is a dependency of 'budgets'"),
        (lambda run: run.pop("reference_budgets"), "the line: 'reference_budgets' is a dependency"),
        (lambda run: run["calibration"].update(factor=-1), "calibration/factor"),
        (lambda run: run["calibration"].update(extra=1), "calibration"),
        (lambda run: run["calibration"].update(source="guessed"), "calibration/source"),
    ]:
        run = rating_run()
        change(run)
        with pytest.raises(ValueError, match=f"breaks record-v2.schema.json: {re.escape(field)}"):
            records.check_lines([run], "r")


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda run: run.pop("calibration"), "holds no calibration"),
        (lambda run: run.update(calibration=calibration.entry(calibration.Calibration(0.5))), "given"),
        (lambda run: run["calibration"].update(factor=0.25), "not its fastest round"),  # more CPU for the agent
        (lambda run: run["budgets"].update(x=1.0), "is not its reference budget 0.3 s scaled"),
        (lambda run: run["reference_budgets"].pop("x"), "has no reference budget"),
        (lambda run: run["calibration"].update(workload="other"), "not this checkout's"),
        (lambda run: run["calibration"].update(rounds=[1.0], factor=1 / calibration.REFERENCE_SPEED), "implausible"),
    ],
)
def test_verify_refuses_a_missing_given_or_forged_calibration(change, problem):
    run = copy.deepcopy(rating_run())
    assert calibration.problems(run) == []
    change(run)
    found = calibration.problems(run)
    assert any(problem in p for p in found), found


@pytest.mark.parametrize("bad", [0, -1, 0.01, 21, math.nan, math.inf, "1", True, None])
def test_a_calibration_factor_outside_its_range_is_refused_naming_the_flag(bad):
    with pytest.raises(ValueError, match=r"--calibration-factor must be a number from 0.05 to 20.0"):
        calibration.check_factor(bad)
    assert calibration.check_factor(0.5) == 0.5


@pytest.mark.parametrize("bad", ["0", "-2", "nan", "100"])
def test_rate_refuses_a_bad_calibration_factor_before_playing(bad, capsys):
    with pytest.raises(SystemExit):
        rate.main(["heuristic", "--game", "wapi", "--num-players", "2", "--calibration-factor", bad])
    assert "--calibration-factor must be a number from 0.05 to 20.0" in capsys.readouterr().err


def test_a_sealed_agent_is_given_its_scaled_budget_when_it_asks_for_it():
    host = Host()
    host.handle({"op": "game", "game": "wakanda", "config": {}, "agent": "benchmarks.slowed_search:SlowedSearch",
                 "options": {"slowdown": 2}})  # fmt: skip
    host.handle({"op": "agent", "seed": 1, "budget": 0.25})
    assert host.agent.time_limit == pytest.approx(0.8 * 0.25) and host.agent.slowdown == 2.0
    host.options = {"budget": 9}
    with pytest.raises(ValueError, match="budget is not an option"):
        host.handle({"op": "agent", "seed": 1, "budget": 0.25})


def test_an_agent_that_does_not_name_budget_is_built_as_before(monkeypatch):
    class Plain:
        def __init__(self, game, **options):
            self.options = options

        def act(self, view):
            return view.legal_actions[0]

    monkeypatch.setattr(user_agents, "agent_class", lambda name: Plain)
    agent = user_agents.build("m:Plain", make_game("wakanda"), 0, {}, budget=0.5)
    assert agent.options == {"seed": 0}  # never a budget it did not name
