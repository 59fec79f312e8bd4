"""The hex-graph network puts each logit on its action and sees the board's adjacency; a tiny benchmark run."""

from __future__ import annotations

import torch

from agents.games import make_game
from benchmarks import imitation_networks
from benchmarks.imitation_networks import HexGraphNet
from envs.samurai.actions import FIGURE, HEX, NUM_ACTIONS, hex_action
from envs.samurai.board import NEIGHBOURS, NUM_HEXES, NUM_SETTLEMENTS
from envs.samurai.observation import HEX_FEATURES


def test_one_hex_changes_only_the_hex_logits_within_its_reach():
    """Hex logits depend on a hex's own features and those at most ``rounds`` steps away (before the
    pooled heads): a hex far from the changed one keeps its logit, a neighbour's moves."""
    torch.manual_seed(0)
    net = HexGraphNet(rounds=1)
    game = make_game("samurai", num_players=2)
    base = torch.zeros(1, game.observation_size)
    base[0, : NUM_HEXES * HEX_FEATURES : HEX_FEATURES] = 1.0  # every hex on the board
    changed = base.clone()
    hex_id = 80
    changed[0, hex_id * HEX_FEATURES + 12] = 1.0  # an influence feature of hex 80
    with torch.no_grad():
        before, _ = net(base)
        after, _ = net(changed)
    assert before.shape == (1, NUM_ACTIONS) and NUM_ACTIONS == FIGURE + 3 * NUM_SETTLEMENTS
    moved = {h for h in range(NUM_HEXES) if not torch.isclose(before[0, hex_action(h)], after[0, hex_action(h)])}
    assert hex_id in moved and moved <= {hex_id, *NEIGHBOURS[hex_id]} and moved & set(NEIGHBOURS[hex_id])
    assert HEX == hex_action(0)


def test_a_tiny_run_reports_both_networks(tmp_path):
    out = tmp_path / "imitation.md"
    imitation_networks.main(["--games", "4", "--epochs", "1", "--processes", "1", "--out", str(out)])
    text = out.read_text()
    assert "| mlp |" in text and "| graph |" in text
    assert "Command: `python -m benchmarks.imitation_networks --games 4 --epochs 1" in text
