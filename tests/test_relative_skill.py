"""The relative-skill study end to end on a tiny run: a record a deal at a time, resumed, and its report."""

import pytest

from research.core import measures as luck_measures
from research.relative_skill import report as relative_skill_report
from research.relative_skill import run as relative_skill


def test_a_tiny_study_records_resumes_and_reports(tmp_path, monkeypatch):
    monkeypatch.setattr(luck_measures, "RESAMPLES", 50)
    monkeypatch.setattr(relative_skill_report, "planned", lambda config: None)  # a run outside the pre-registration
    record = tmp_path / "records" / "wapi2.jsonl"
    play = ["play", "--config", "wapi2", "--first", "0", "--budgets", "2", "--record", str(record)]
    assert relative_skill.main([*play, "--deals", "2"]) == 0
    assert relative_skill.done_deals(record) == {0, 1}
    assert relative_skill.main([*play, "--deals", "3"]) == 0  # plays deal 2 only
    lines = record.read_text().splitlines()
    assert sum('"kind":"game"' in line for line in lines) == 3 * 2 * len(relative_skill.hero_labels([2]))
    out = tmp_path / "relative_skill.md"
    assert relative_skill.main(["report", "--records", str(record.parent), "--out", str(out), "--allow-dirty"]) == 0
    text = out.read_text()
    assert "python -m research.relative_skill report" in text and "NOT pre-registered" in text
    assert "| 2 | " in text and "clairvoyant-2" in text
    assert "![relative skill and variance components](relative_skill.png)" in text
    assert out.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # the figure the report shows


def test_the_figure_shows_the_tables_relative_skill_and_variance_groups(tmp_path, monkeypatch):
    monkeypatch.setattr(luck_measures, "RESAMPLES", 50)
    study = relative_skill_report.load(relative_skill.RECORDS / "wapi4.jsonl.gz")
    table, _, win_rs = relative_skill_report.relative_skill_rows(study)
    panel = relative_skill_report.panel(study, win_rs)
    assert [budget for budget, _ in panel.relative_skill] == study.budgets == [100, 1000]
    rows = "\n".join(table)
    for budget, rs in panel.relative_skill:  # the figure's RS is the table's, row for row
        assert f"| win share | {budget} |" in rows and str(rs) in rows
    assert set(panel.shares) == {"luck", "skill", "interaction", "replay"}
    assert abs(sum(panel.shares.values()) - 1) < 1e-9  # the groups split the whole variance


def test_heroes_go_from_random_to_the_clairvoyant():
    assert relative_skill.hero_labels([25, 100]) == [
        "random",
        "heuristic",
        "best-25",
        "best-100",
        "clairvoyant-25",
        "clairvoyant-100",
    ]


def test_a_sealed_record_is_not_added_to(tmp_path):
    record = tmp_path / "wapi2.jsonl"
    (tmp_path / "wapi2.jsonl.gz").write_bytes(b"")
    with pytest.raises(SystemExit, match="finished record"):
        relative_skill.main(["play", "--config", "wapi2", "--deals", "2", "--first", "0", "--record", str(record)])


def test_the_seer_plays_only_where_asked_and_reads_the_truth_in_its_rollouts():
    from envs.games import make_game
    from research.core.clairvoyant import SeerAgent

    assert relative_skill.hero_labels([5], seer=True)[-2:] == ["clairvoyant-5", "seer-5"]
    game = make_game("wakanda")
    seer = relative_skill.build_hero("seer-3", game, seed=0)
    assert isinstance(seer, SeerAgent)
    settings = seer.search.settings
    assert settings.value_mix == 1.0 and settings.rollout_depth is None  # every leaf a rollout on the true state


def test_pooled_relative_skill_is_the_estimate_on_the_union_of_the_records_deals(tmp_path, monkeypatch):
    """Amendment 9 of the pre-registration: RS of a configuration on the deals of several of its records."""
    import numpy as np

    monkeypatch.setattr(luck_measures, "RESAMPLES", 50)
    monkeypatch.setattr(relative_skill_report, "planned", lambda config: None)
    pooled = {"pooled": [{"config": "wapi2", "records": ["wapi2", "wapi2_more"]}]}
    monkeypatch.setattr(relative_skill_report, "_preregistration", lambda: pooled)
    studies = {}
    for name, first in (("wapi2", "0"), ("wapi2_more", "7")):
        record = tmp_path / f"{name}.jsonl"
        argv = ["play", "--config", "wapi2", "--first", first, "--budgets", "2", "--deals", "2"]
        argv += ["--record", str(record)]
        assert relative_skill.main(argv) == 0
        studies[name] = relative_skill_report.load(record, allow_dirty=True)  # played from this working tree
    assert relative_skill_report.pooled_rows({"wapi2": studies["wapi2"]})[2] == (
        "Not reported yet: no record of wapi2_more."
    )
    rows = relative_skill_report.pooled_rows(studies)
    labels = ["random", "best-2", "clairvoyant-2"]
    union = np.concatenate([relative_skill_report.per_deal(studies[n], labels) for n in ("wapi2", "wapi2_more")])
    expected = luck_measures.relative_skill_estimates(union)
    estimates = f"{expected['LE']} | {expected['RE']} | {expected['RS']} | {expected['RS Fieller']}"
    assert f"| win share | 2 | 4 | {estimates} |" in rows


def test_a_directional_claim_holds_only_in_its_direction():
    """The registered test is two-sided: a difference shown below 0 must not make 'RE > 0' hold."""
    claims = {"up": (1e-6, +0.2), "down": (1e-6, -0.2), "level": (0.5, +0.01)}
    rows = relative_skill_report.claim_rows(claims)
    holds = {row.split(" | ")[0].strip("| "): row.rstrip(" |").rsplit("| ", 1)[1] for row in rows[2:]}
    assert holds == {"up": "yes", "down": "no", "level": "no"}
