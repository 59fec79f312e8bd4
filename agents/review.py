"""A game's review, move by move: the skill lost at each decision and the luck of each draw.

    python -m agents.review RECORD [--index N]          # a web page's downloaded game, or a benchmark record's
    python -m agents.review --game wakanda --seed 3 --play heuristic random
    python -m agents.review --game wapi --num-players 4 --seed 1 --play heuristic random random heuristic --json

The game is replayed from its seed and moves; a value estimator (:mod:`agents.review_values`: rollouts by
default, a search, or a network) values positions for every player, and the review walks the game:

- at each **decision** (more than one legal move) the mover's chosen move against the best move found:
  ``skill = value(chosen) - value(best)`` for the mover (at most 0); the same difference for each other player
  is what that decision gave them (``opponents``);
- at each **chance event** (the deal, every draw from the bag, a pile or the face-down villages:
  :mod:`envs.core.chance`), ``luck = value(after) - expectation over every outcome``, for every player. The
  deal's expectation is over ``deals`` freshly dealt games (an estimate); a draw's is exact over its outcomes,
  or over ``max_outcomes`` drawn at random where it has more (an estimate, said in the event);
- per player: ``result = expected + luck + skill + opponents + residual``, ``expected`` the deal's
  expectation, ``result`` the win share (1, 1/k for a win shared by k, 0) or with ``outcome="score"`` the
  score margin. The identity is exact: ``residual`` is what the estimates leave unexplained (a value of a
  position next to the best move's value from it, an action's value next to its outcomes' average) and is
  reported, never spread over the other terms; with exact values it is 0.

Every luck term has expectation 0 over its draw whatever the values (exactly, for an enumerated draw; over
the sampled outcomes too, for a sampled one), so ``result - luck`` is an unbiased, less noisy measure of a
player's share: the chance-node control variate of AIVAT (:func:`corrected_result`;
``benchmarks/core/luck_corrected.py`` pools it over games). The estimator sees the true position only
after the game (every hand), never the order of the draws to come. The same ``review_seed`` gives the
same review of a game. Its samples (the fresh deals, the sampled outcomes, the estimator's own) are drawn
from ``review_seed`` and the game's seed together, so they differ from game to game: the deals or outcomes
sampled once for every game would bias a corrected mean by their own error."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from agents.protocol import start_game
from agents.review_report import parse_arguments, read_game, text_report
from agents.review_values import make_estimator, outcome_values, state_result
from envs.core import chance
from envs.core.engine import Game, GameState, IllegalActionError, is_int, shown

TERMS = ("luck", "skill", "opponents", "residual")


@dataclass(frozen=True)
class PlayerReview:
    """One seat's decomposition: ``result == expected + luck + skill + opponents + residual``."""

    seat: int
    result: float
    expected: float
    luck: float
    skill: float
    opponents: float
    residual: float


@dataclass
class Review:
    """A reviewed game: its identity, the estimator, each seat's decomposition and the events in order."""

    game: str
    config: dict[str, Any]
    seed: int | None
    value: str
    outcome: str
    players: list[PlayerReview]
    events: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def corrected_result(review: Review) -> list[float]:
    """Each seat's result with the luck taken out (``result - luck``): the control-variate estimate."""
    return [p.result - p.luck for p in review.players]


def _vector(values: np.ndarray) -> list[float]:
    return [float(v) for v in values]


class _Walk:
    """The running sums of one review (each player's terms, the value reached so far) and its events."""

    def __init__(self, game: Game, estimator, key: list[int], max_outcomes: int):
        self.game, self.estimator, self.key, self.max_outcomes = game, estimator, key, max_outcomes
        self.terms = {term: np.zeros(game.num_players) for term in TERMS}
        self.events: list[dict[str, Any]] = []
        self.value: np.ndarray | None = None  # the estimate of the position reached, every player's

    def deal(self, state: GameState, deals: int) -> np.ndarray:
        """The deal as a chance event: the position dealt against ``deals`` fresh deals. Returns ``expected``."""
        fresh = [self.game.new_state(np.random.default_rng([*self.key, 1, j])) for j in range(deals)]
        values = self.estimator.values([*fresh, state], self._seed(-1, 0))
        expected, self.value = values[:-1].mean(axis=0), values[-1]
        luck = self.value - expected
        self.terms["luck"] += luck
        self.events.append(
            {"kind": "chance", "move": None, "player": None, "draw": "the deal", "luck": _vector(luck)}
            | {"value": _vector(self.value), "expected": _vector(expected), "outcomes": None, "sampled": deals}
        )
        return expected

    def decision(self, state: GameState, move: int, action: int) -> None:
        """The mover's choice: ``value(chosen) - value(best found)``. The best is found on one set of samples,
        and it and the chosen move are valued on a second, independent set (the best found among many noisy
        values is the luckiest of them: valued on the same samples, every move would seem to lose something)."""
        legal, mover = state.legal_tuple(), state.current_player
        ranked = self.estimator.action_values(state, legal, self._seed(move, 0))[:, mover]
        found = max(legal, key=lambda a: (ranked[legal.index(a)], a == action))  # a tie keeps the chosen move
        pair = [action] if found == action else [action, found]
        q = self.estimator.action_values(state, pair, self._seed(move, 2))
        chosen = q[0]
        best, best_value = (found, q[1]) if found != action and q[1, mover] > q[0, mover] else (action, q[0])
        self.terms["residual"] += best_value - self.value
        gained = chosen - best_value
        self.terms["skill"][mover] += gained[mover]
        others = np.arange(self.game.num_players) != mover
        self.terms["opponents"][others] += gained[others]
        self.value = chosen
        self.events.append(
            {"kind": "decision", "move": move, "player": mover, "action": action}
            | {"text": state.describe_action(action), "skill": float(gained[mover])}
            | {"best": best, "best_text": state.describe_action(best), "legal": len(legal)}
            | {"value": _vector(chosen), "best_value": _vector(best_value), "effect": _vector(gained)}
        )

    def chance(self, state: GameState, move: int, action: int) -> None:
        """The draw ``action`` makes: its true outcome's value against every outcome's (or a sample's) average."""
        seed = self._seed(move, 1)
        valued = outcome_values(self.estimator, state, action, seed, self.max_outcomes)
        actual = chance.drawn(state, action)
        if valued.sampled is None:
            after = valued.values[valued.outcomes.index(actual)]
        else:
            child = state.clone()
            chance.play_outcome(child, action, actual)
            after = self.estimator.values([child], seed)[0]
        expected = valued.weights @ valued.values
        self.terms["residual"] += expected - self.value
        luck = after - expected
        self.terms["luck"] += luck
        self.value = after
        order, _ = actual[0]
        self.events.append(
            {"kind": "chance", "move": move, "player": state.drawer(order), "outcome": chance.as_json(actual)}
            | {"draw": "; ".join(state.describe_draw(k, items) for k, items in actual), "luck": _vector(luck)}
            | {"value": _vector(after), "expected": _vector(expected), "outcomes": valued.count}
            | {"sampled": valued.sampled}
        )

    def _seed(self, move: int, question: int) -> int:
        """The seed of one question about one move (the deal's: move -1): apart for every move and question."""
        return int(np.random.SeedSequence([*self.key, 2, move + 1, question]).generate_state(1)[0])


def review_game(
    game: Game,
    actions: list[int],
    seed: int | None,
    *,
    options: dict | None = None,
    value: str | object = "rollouts",
    outcome: str = "win",
    rollouts: int = 32,
    iterations: int = 200,
    deals: int = 16,
    max_outcomes: int = 32,
    review_seed: int = 0,
) -> Review:
    """Review the game dealt by ``seed`` (as :func:`agents.protocol.play_game` deals it, with ``options``) and
    played by ``actions``. ``value`` names the estimator (:func:`agents.review_values.make_estimator`:
    ``rollouts`` with ``rollouts`` playouts a position, ``search`` with ``iterations``, ``trained`` or
    ``ppo:PATH``) or is one (any object with ``values`` and ``action_values``). ValueError for a move that
    is not legal, moves that end before the game does, or a bad setting (naming it and its allowed values)."""
    for name, number in (("deals", deals), ("max_outcomes", max_outcomes)):
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise ValueError(f"{name} must be a positive int, got {shown(number)}")
    estimator = (
        make_estimator(value, game, outcome, rollouts, iterations, max_outcomes) if isinstance(value, str) else value
    )
    state, _ = start_game(game, seed, options)
    key = [review_seed] if seed is None else [review_seed, seed]  # the samples differ from game to game
    walk = _Walk(game, estimator, key, max_outcomes)
    expected = walk.deal(state, deals)
    for move, action in enumerate(actions):
        if state.current_player is None:
            raise ValueError(f"the game ended after {move} moves, but the moves go on to {len(actions)}")
        if not is_int(action) or action not in state.legal_tuple():
            raise IllegalActionError(f"move {move} ({shown(action)}) is not legal: legal are {state.legal_actions()}")
        if len(state.legal_tuple()) > 1:
            walk.decision(state, move, action)
        if state.chance_draws(action):
            walk.chance(state, move, action)
        state.apply(action)
    if state.current_player is not None:
        raise ValueError(f"the moves end after {len(actions)} moves, before the game does: a review needs a whole game")
    result = state_result(state, outcome)
    walk.terms["residual"] += result - walk.value
    players = [
        PlayerReview(p, float(result[p]), float(expected[p]), *(float(walk.terms[t][p]) for t in TERMS))
        for p in range(game.num_players)
    ]
    name = getattr(estimator, "name", type(estimator).__name__)
    return Review(game.name, game.config(), seed, name, outcome, players, walk.events)


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring; ``--help`` lists every option)."""
    args = parse_arguments(__doc__, argv)
    game, seed, actions = read_game(args)
    try:
        review = review_game(
            game, actions, seed, value=args.value, outcome=args.outcome, rollouts=args.rollouts,
            iterations=args.iterations, deals=args.deals, max_outcomes=args.max_outcomes, review_seed=args.review_seed,
        )  # fmt: skip
    except ValueError as error:  # a bad --value or --outcome for this game, or moves that do not replay
        args.parser.error(str(error))
    print(json.dumps(review.to_json()) if args.json else text_report(review.to_json(), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
