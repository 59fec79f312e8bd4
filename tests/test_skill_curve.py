"""The skill curve (issue 50, item 6): its curvature test finds a bend only where one is, on synthetic rungs of
known strength; bad arguments are refused by name; a tiny real play makes a record that reports."""

import numpy as np
import pytest

from research.core import measures as luck_measures
from research.core import synthetic_games as sg
from research.skill_curve import report as skill_curve_report
from research.skill_curve import run as skill_curve

BUDGETS = [25, 50, 100, 200, 400, 800]
TABLES = skill_curve.tables(BUDGETS, ["clairvoyant"])
RESAMPLES = 300  # enough for a 95% interval in a test; the report uses luck_measures.RESAMPLES


def known_curve(slope: float, bend: float, seed: int) -> skill_curve_report.Curve:
    """The fitted curve of rungs whose log-strength is 1.4 + slope k + bend k² at budget 25 * 2**k (random 0,
    the heuristic 1: a rating is 1,000 times the strength), the reference 0.5 above the top, 300 deals."""
    k = np.arange(len(BUDGETS))
    strength = 1.4 + slope * k + bend * k**2
    players = {"random": 0.0, "heuristic": 1.0, **{f"best-{b}": s for b, s in zip(BUDGETS, strength)}}
    players["clairvoyant-800"] = strength[-1] + 0.5
    games = sg.curve_games(players, TABLES, deals=300, seed=seed)
    return skill_curve_report.analyse(games, BUDGETS, ["clairvoyant-800"], TABLES, RESAMPLES)


SEEDS = range(20)  # 20 synthetic studies of each shape: a 95% interval misses the truth in about one


def test_a_straight_line_in_log_budget_is_not_called_bent():
    curves = [known_curve(0.4, 0.0, seed) for seed in SEEDS]
    assert sum(c.curvature.contains(0.0) for c in curves) >= 17, [c.curvature for c in curves]
    assert sum(c.p_bends < 0.05 for c in curves) <= 3, [c.p_bends for c in curves]  # a one-sided test at 0.05
    values = np.array([c.curvature.value for c in curves])
    assert abs(values.mean()) < 3 * values.std(ddof=1) / np.sqrt(len(values)), values  # no bias towards a bend
    assert sum(c.slope.contains(400.0) for c in curves) >= 17  # 0.4 log-strength a doubling
    assert sum(c.gaps["clairvoyant-800"].contains(500.0) for c in curves) >= 17


def test_a_concave_curve_is_called_bent_and_its_curvature_recovered():
    curves = [known_curve(0.9, -0.1, seed) for seed in SEEDS]
    assert sum(c.p_bends < 0.05 for c in curves) >= 18, [c.p_bends for c in curves]
    # -0.1 log-strength a doubling squared is c = -100 rating points
    assert sum(c.curvature.contains(-100.0) for c in curves) >= 17, [c.curvature for c in curves]
    assert sum(c.ratings["best-25"].contains(1400.0) for c in curves) >= 17


def test_the_tables_climb_from_the_anchors_to_the_reference():
    assert skill_curve.tables([4, 8, 16], ["clairvoyant", "seer"]) == [
        ("heuristic", "random"),
        ("best-4", "heuristic"),
        ("best-8", "heuristic"),
        ("best-16", "heuristic"),
        ("best-8", "best-4"),
        ("best-16", "best-8"),
        ("clairvoyant-16", "best-16"),
        ("seer-16", "best-16"),
    ]


@pytest.mark.parametrize(
    "change, named",
    [
        ({"--config": ["nowhere"]}, "--config: invalid choice: 'nowhere' (choose from"),
        ({"--budgets": ["8", "4", "16"]}, "--budgets must be at least 3 strictly increasing positive ints, got [8, 4"),
        ({"--budgets": ["4", "8"]}, "--budgets must be at least 3"),
        ({"--deals": ["1"]}, "--deals must be at least 2"),
        ({"--reference": ["oracle"]}, "--reference: invalid choice: 'oracle' (choose from 'clairvoyant', 'seer')"),
        ({"--first": ["-1"]}, "--first must be an int from 0 to"),
    ],
)
def test_bad_arguments_are_refused_by_name(change, named, capsys, tmp_path):
    args = {"--config": ["wakanda"], "--deals": ["2"], "--first": ["0"], "--budgets": ["2", "4", "8"]} | change
    argv = [
        "play",
        "--record",
        str(tmp_path / "x.jsonl"),
        *(x for flag, values in args.items() for x in (flag, *values)),
    ]
    with pytest.raises(SystemExit):
        skill_curve.main(argv)
    assert named in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


def test_a_tiny_real_play_records_resumes_and_reports(tmp_path, monkeypatch):
    """Wakanda, budgets 2, 4 and 8 (a quadratic needs three points), two deals: every table in every seat."""
    monkeypatch.setattr(luck_measures, "RESAMPLES", 50)
    record = tmp_path / "wakanda_tiny.jsonl"  # not a pre-registered record's name
    play = ["play", "--config", "wakanda", "--first", "0", "--budgets", "2", "4", "8", "--record", str(record)]
    assert skill_curve.main([*play, "--deals", "2"]) == 0
    assert skill_curve.main([*play, "--deals", "2"]) == 0  # resumed: nothing left to play
    lines = record.read_text().splitlines()
    assert sum('"kind":"game"' in line for line in lines) == 2 * 2 * len(skill_curve.tables([2, 4, 8], ["clairvoyant"]))
    out = tmp_path / "skill_curve.md"
    assert skill_curve.main(["report", str(record), "--out", str(out), "--allow-dirty"]) == 0
    text = out.read_text()
    assert "python -m research.skill_curve report wakanda_tiny.jsonl --out research/results/skill_curve.md" in text
    assert "NOT pre-registered" in text and "| best-8 | 8 |" in text and "clairvoyant-8" in text
    assert "| wakanda: the curve bends (c < 0) | no registered record yet (counted at p = 1) |" in text
    assert (tmp_path / "skill_curve_wakanda_tiny.png").exists()
    registered_name = tmp_path / "wakanda.jsonl"  # a registered record's name, but not its budgets nor deals
    registered_name.write_bytes(record.read_bytes())
    assert skill_curve.main(["report", str(registered_name), "--out", str(out), "--allow-dirty"]) == 0
    text = out.read_text()
    assert "Deals: 2 complete; does NOT match its pre-registration ([25, 50, 100, 200, 400, 800]" in text
    assert "| wakanda: the curve bends (c < 0) | no registered record yet (counted at p = 1) |" in text


def test_the_cost_adds_each_table_in_every_seat():
    """A seat at b iterations costing b / 100 s a game (the field nothing): best's tables cost, a rotation, the
    sum of the budgets against the field plus each adjacent pair; a reference's table its seat and best-800's."""
    cpu = {"heuristic": 0.0} | {f"{kind}-{b}": b / 100 for kind in ("best", "clairvoyant", "seer") for b in (50, 200)}
    hours = skill_curve.study_hours(cpu, 50, 200, seats=2)
    games = 2 * skill_curve.STUDY_DEALS / 3600
    assert hours["best's tables"] == pytest.approx((15.75 + 15.5 + 7.75) * games)
    assert hours["clairvoyant"] == hours["seer"] == pytest.approx((8 + 8) * games)


def test_a_scale_whose_anchors_are_separated_is_said_to_rest_on_the_prior():
    """Two-player Samurai: the heuristic beats random in every game, so the unit of the scale is the prior's."""
    from research.skill_curve import report as skill_curve_report

    swept = [
        {"hero": "heuristic", "seats": s, "hero_seat": h, "winners": [h]}
        for s, h in ((["heuristic", "random"], 0), (["random", "heuristic"], 1))
    ]
    assert "rests on the rating's prior" in skill_curve_report.separated_note(swept)[1]
    lost = swept[:1] + [{**swept[1], "winners": [0]}]
    assert skill_curve_report.separated_note(lost) == []


def test_a_claim_made_early_is_adjusted_over_the_whole_registered_family():
    """With one of the three registered configurations played, the other two count at p = 1 (Holm over three)."""
    from research.skill_curve import report as skill_curve_report

    rows = skill_curve_report.claim_rows({"wapi4: the curve bends (c < 0)": 0.01})
    assert rows[2] == "| wapi4: the curve bends (c < 0) | 0.01 | 0.03 | yes |"
    assert [row.split(" | ")[0] for row in rows[3:]] == [
        "| wakanda: the curve bends (c < 0)",
        "| samurai2: the curve bends (c < 0)",
    ]
