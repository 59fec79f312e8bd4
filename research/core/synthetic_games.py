"""Small synthetic games whose luck and skill are known, to check the estimators of :mod:`research.core.measures`.

A measure of luck is only as good as its behaviour where the answer is
known: a game of pure chance must come out at RS = 0 with all its variance
from the deal, a game without chance at RS = 1, and a mixture at its known
weight. Each function here plays such a game over deals and seats and
returns results laid out as the study's records are, so the tests run the
very estimators the reports use.
"""

from __future__ import annotations

import numpy as np


def guess_and_solve(weight: float, deals: int, seats: int = 2, seed: int = 0) -> np.ndarray:
    """``results[deal, seat, player]`` of a beginner, a skilled player and a clairvoyant in the guess-and-solve game.

    Each deal gives every seat a visible puzzle with one right answer out of two, and a hidden fair coin
    to call. A game scores ``weight`` for the right answer plus ``1 - weight`` for the right call. The
    beginner answers and calls at random; the skilled player always answers right (it reads the puzzle)
    and calls at random (nothing it sees tells the coin); the clairvoyant answers right and sees the coin.
    So LE = weight / 2, RE = (1 - weight) / 2 and RS = ``weight``: 0 is pure chance, 1 no chance. The three
    meet the same puzzles and coins (the same deal)."""
    rng = np.random.default_rng(seed)
    answer = rng.integers(0, 2, (deals, seats))
    coin = rng.integers(0, 2, (deals, seats))

    def score(answered: np.ndarray, called: np.ndarray) -> np.ndarray:
        return weight * (answered == answer) + (1 - weight) * (called == coin)

    beginner = score(rng.integers(0, 2, answer.shape), rng.integers(0, 2, coin.shape))
    skilled = score(answer, rng.integers(0, 2, coin.shape))
    clairvoyant = score(answer, coin)
    return np.stack([beginner, skilled, clairvoyant], axis=-1)


def ladder_game(
    weight: float, deals: int, seats: int, agents: int, replays: int, interaction: float, noise: float, seed: int = 0
) -> np.ndarray:
    """``y[deal, seat, agent, replay]`` of a ladder of agents in a game of known variance components.

    y = sqrt(weight) * skill[agent] + sqrt(1 - weight) * (luck[deal] + luck[deal, seat])
    + deal-by-agent effect (variance ``interaction``) + the agents' own chance (variance ``noise``, fresh each
    replay). The skills are equally spaced with variance 1 (divisor agents - 1) and the two lucks have variance
    1/2 each, so the components are: deal (1 - weight) / 2, deal x seat (1 - weight) / 2, agent ``weight``,
    deal x agent ``interaction``, replay ``noise``, and 0 for the rest."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(-1, 1, agents)
    skill = skill / skill.std(ddof=1)
    luck = rng.normal(0, np.sqrt(0.5), (deals, 1, 1, 1)) + rng.normal(0, np.sqrt(0.5), (deals, seats, 1, 1))
    mixed = rng.normal(0, np.sqrt(interaction), (deals, 1, agents, 1))
    own = rng.normal(0, np.sqrt(noise), (deals, seats, agents, replays))
    return np.sqrt(weight) * skill[None, None, :, None] + np.sqrt(1 - weight) * luck + mixed + own


def field_ladder(
    luck: float, interaction: float, noise: float, deals: int, seats: int, agents: int, replays: int, seed: int = 0
) -> tuple[np.ndarray, dict[str, float]]:
    """``y[deal, seat, agent, replay]`` of the relative-skill study's design, and its known shares among these players.

    One hero against a fixed field: a deal's luck only moves between its seats (it sums to 0 over them, the deal's
    mean is fixed), so the crossed model's deal component comes out below 0. A result is the agent's skill (equally
    spaced in [-1, 1]) + its seat's luck on the deal (variance ``luck`` before centring) + a deal x seat x agent
    effect (variance ``interaction``) + the game's own noise (``noise``). Among these agents and seats the known
    variances are: luck ``luck * (seats - 1) / seats``, skill the skills' spread (divisor agents), interaction and
    replay as given; the shares are of their sum."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(-1, 1, agents)
    cards = rng.normal(0, np.sqrt(luck), (deals, seats, 1, 1))
    mixed = rng.normal(0, np.sqrt(interaction), (deals, seats, agents, 1))
    own = rng.normal(0, np.sqrt(noise), (deals, seats, agents, replays))
    y = skill[None, None, :, None] + cards - cards.mean(axis=1, keepdims=True) + mixed + own
    known = {"luck": luck * (seats - 1) / seats, "skill": float(skill.var()), "interaction": interaction}
    known |= {"replay": noise}
    total = sum(known.values())
    return y, {name: v / total for name, v in known.items()}


def rung_results(shares: list[float], deals: int, seats: int, seed: int = 0) -> np.ndarray:
    """``results[deal, seat, rung]``: each rung beats the field with its known probability (independent games).

    The ladder's Elo spread is then 400 log10 of the top's odds over the bottom's, and the upset
    frequency of a weaker rung w over a stronger s is w (1 - s) + (w s + (1 - w)(1 - s)) / 2."""
    rng = np.random.default_rng(seed)
    return (rng.random((deals, seats, len(shares))) < np.asarray(shares)).astype(float)


def field_results(strengths: list[float], luck: float, noise: float, deals: int, seats: int, seed: int = 0):
    """``results[deal, seat, player]`` of players who each play the same field on the same deals and seats.

    A game's result is the player's strength, plus the luck of its deal and seat (variance ``luck``, the same
    for every player there: duplicate luck), plus the game's own noise (variance ``noise``). So between two
    players a game differs by the strengths' difference with variance 2 (luck + noise) on fresh deals (their
    games independent) and 2 noise on duplicate deals (the luck cancels)."""
    rng = np.random.default_rng(seed)
    cards = rng.normal(0, np.sqrt(luck), (deals, seats, 1))
    own = rng.normal(0, np.sqrt(noise), (deals, seats, len(strengths)))
    return np.asarray(strengths, dtype=float) + cards + own


def curve_games(strengths: dict[str, float], tables: list[tuple[str, str]], deals: int, seed: int = 0) -> list[dict]:
    """Two-player games between players of known Bradley–Terry log-strengths, as the skill-curve study's record
    lines: at each table ``(hero, opponent)`` of each deal, the hero in each seat once, winning with probability
    1 / (1 + exp(opponent's strength - hero's)). With random at 0 and the heuristic at 1, a player's anchored
    rating is 1,000 times its strength, so a curve of known shape in log(budget) can be laid out exactly."""
    rng = np.random.default_rng(seed)
    lines = []
    for deal in range(deals):
        for hero, opponent in tables:
            for hero_seat in (0, 1):
                won = bool(rng.random() < 1 / (1 + np.exp(strengths[opponent] - strengths[hero])))
                winner = hero_seat if won else 1 - hero_seat
                seats = [hero, opponent] if hero_seat == 0 else [opponent, hero]
                lines.append(
                    {"game": "synthetic", "config": {}, "seed": deal, "deal": deal, "seating": hero_seat}
                    | {"replay": 0, "hero": hero, "hero_seat": hero_seat, "seats": seats, "winners": [winner]}
                    | {"scores": [float(s == winner) for s in range(2)], "result": float(won), "cpu_s": 0.0}
                )
    return lines
