"""The Samurai batch's compiled parts on their own: the winner procedure, the heuristic over some of the games,
and the checks of ``step_where`` (the differential tests of ``test_samurai_batch.py`` play whole games)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.heuristic import samurai as heuristic
from envs.core import IllegalActionError
from envs.samurai import SamuraiGame
from envs.samurai.batch import SamuraiBatch
from envs.samurai.batch_scoring import fill_winners
from envs.samurai.scoring import winners


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_compiled_winner_procedure_is_scoring_winners(players):
    """Rules (docs/rules/samurai.md, "Winner": majorities, two majorities, one majority and the other types,
    totals, shared wins): for many captures with many ties, the winners of every finished game are
    ``scoring.winners``'s, and a game still going has none."""
    rng = np.random.default_rng(players)
    captured = rng.integers(0, 4, size=(5000, players, 3))
    player = np.where(rng.random(5000) < 0.9, -1, 0)
    won = np.zeros((5000, players), dtype=bool)
    fill_winners(captured, player, won)
    for i in range(5000):
        expected = winners(captured[i].tolist()) if player[i] < 0 else []
        assert np.flatnonzero(won[i]).tolist() == expected, captured[i]


def test_step_where_plays_only_those_games_and_refuses_an_illegal_action_unchanged():
    """The batch contract: the games outside ``where`` wait (their actions ignored, even illegal ones); an
    illegal action in ``where`` raises naming its game and changes no game."""
    batch = SamuraiBatch(SamuraiGame(2), 8, 11)
    for _ in range(5):
        batch.step(heuristic.batch_policy(batch))
    where = np.arange(8) % 2 == 0
    before = [batch.state_dict(i) for i in range(8)]
    moves = np.where(where, heuristic.batch_policy(batch), -5)
    batch.step_where(moves, where)
    assert [batch.state_dict(i) for i in range(1, 8, 2)] == before[1::2]
    assert all(batch.state_dict(i) != before[i] for i in range(0, 8, 2))
    before = [batch.state_dict(i) for i in range(8)]
    moves = heuristic.batch_policy(batch)
    moves[4] = int(np.flatnonzero(~batch.legal_mask()[4])[0])
    with pytest.raises(IllegalActionError, match="game 4"):
        batch.step_where(moves, where)
    assert [batch.state_dict(i) for i in range(8)] == before
    with pytest.raises(ValueError, match="where must be 8 bools"):
        batch.step_where(moves, where.astype(int))
