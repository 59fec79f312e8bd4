"""A Wapi strategy a decent player would recognise.

Everything in Wapi is public except the bag's order, so the strategy reads
one determinized copy of the position and uses only public facts: mines,
masks, poles, the drawn tile and the bag's *contents* (never its order).

Two ideas:

- **Expected mine values.** Every silver field ends up filled (the game ends
  with the 30th coin), so a mine's expected final value is its silver plus
  the mean coin left in the bag per free field. Putting a coin worth ``v``
  in a mine changes that mine's expected value by ``v - mean``: good coins
  go where my poles outweigh the others' (above all the leader's), poor
  coins (0s and 1s) are dumped where the others' poles outweigh mine.
- **Totems as a secretary problem.** A totem on the mask just drawn scores
  about the mine's expected value (shared scoring: its share). I take it
  unless I expect, among the masks I will still draw before the end, at
  least as many better chances as I have totems left. A mine that still has
  free silver fields is worth a little more: my own later coins can go there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

# The strategy's two constants (what each means: ``wapi_play_out.py``, whose kernel reads them too).
from agents.heuristic.wapi_play_out import CONTROL_BONUS, LEADER_WEIGHT, play_to_end
from envs.wapi.actions import DECLINE, PLACE_TOTEM, coin_mine
from envs.wapi.batch import TILE_VALUE, WapiBatch
from envs.wapi.components import COIN_VALUES, COINS_TO_END, FIRST_MASK, NUM_MINES, SILVER_FIELDS, is_coin, mask_mine

if TYPE_CHECKING:
    from agents.protocol import PlayerView
    from envs.wapi.rules import WapiState

#: The coin values as a row, for the batch form's mean coin.
COIN_VALUE_ROW = np.array(COIN_VALUES, dtype=float)


def choose(view: PlayerView, rng: np.random.Generator) -> int:
    """The agent's move: the policy on one determinized copy (only public facts are read)."""
    return policy(view.sample_determinization(rng))


def policy(state: WapiState) -> int:
    """The move of the player to act in ``state`` (also ISMCTS's rollout policy on its samples)."""
    me = state.current_player
    legal = state.legal_tuple()
    if is_coin(state.drawn):
        return _place_coin(state, me, legal) if len(legal) > 1 else legal[0]
    if PLACE_TOTEM not in legal:
        return DECLINE
    return PLACE_TOTEM if _take_totem(state, me) else DECLINE


def bag_facts(state: WapiState) -> tuple[float, int, list[int]]:
    """Mean value of the coins left in the bag, their number, and the masks left per mine."""
    counts = state.bag_counts  # public: the bag's contents by kind (never its order)
    coins = sum(counts[:FIRST_MASK])
    mean = sum(v * c for v, c in zip(COIN_VALUES, counts)) / coins if coins else 0.0
    return mean, coins, counts[FIRST_MASK:]


def expected_values(state: WapiState, mean: float) -> list[float]:
    return [sum(s) + (SILVER_FIELDS - len(s)) * mean for s in state.silver]


def masks_to_come(state: WapiState, coins_left: int, masks_left: int) -> float:
    """Expected masks drawn before the last coin is placed (masks and coins mixed in the bag)."""
    return (COINS_TO_END - state.coins_placed) * masks_left / (coins_left + 1) if masks_left else 0.0


def _weights(state: WapiState) -> list[list[float]]:
    """How much of each mine's value each player scores (pole count; shared scoring: share):
    ``weights[player][mine]``. (One pass over the poles: this runs in every search rollout.)"""
    shared = state.game.scoring == "shared"
    out = [[0.0] * NUM_MINES for _ in range(state.game.num_players)]
    for k, poles in enumerate(state.totems):
        for p in set(poles):
            out[p][k] = poles.count(p) / len(poles) if shared else float(poles.count(p))
    return out


def _place_coin(state: WapiState, me: int, legal: tuple[int, ...]) -> int:
    mean, _, _ = bag_facts(state)
    values = expected_values(state, mean)
    n = state.game.num_players
    weights = _weights(state)
    others = [p for p in range(n) if p != me]
    expected = [sum(w * v for w, v in zip(weights[p], values)) for p in range(n)]
    leader = max(others, key=lambda p: expected[p])
    delta = COIN_VALUES[state.drawn] - mean

    def gain(action: int) -> tuple[float, int]:
        k = coin_mine(action)
        total = sum(weights[p][k] for p in others)
        opp = (1 - LEADER_WEIGHT) * total / len(others) + LEADER_WEIGHT * weights[leader][k]
        return delta * (weights[me][k] - opp), -k  # ties: the lowest mine

    return max(legal, key=gain)


def _pole_value(state: WapiState, mine: int, value: float) -> float:
    """What one more pole in ``mine`` is worth to its owner."""
    poles = len(state.totems[mine])
    worth = value / (poles + 1) if state.game.scoring == "shared" else value
    return worth + CONTROL_BONUS * (SILVER_FIELDS - len(state.silver[mine]))


def _take_totem(state: WapiState, me: int) -> bool:
    mean, coins_left, masks = bag_facts(state)
    values = expected_values(state, mean)
    mine = mask_mine(state.drawn)
    now = _pole_value(state, mine, values[mine])
    masks_left = sum(masks)
    mine_share = masks_to_come(state, coins_left, masks_left) / state.game.num_players
    if masks_left == 0 or mine_share <= 0:
        return True
    better = sum(m for k, m in enumerate(masks) if _pole_value(state, k, values[k]) > now)
    expected_better = mine_share * better / masks_left
    return expected_better < state.totems_left[me]


# --- the same strategy over a batch of games (envs/wapi/batch.py) ------------------------
# Every float is computed in the order the functions above compute it, so that the two forms
# choose alike to the last tie (tests/test_wapi_batch.py plays seeded games both ways).


def batch_policy(batch: WapiBatch, where: np.ndarray | None = None) -> np.ndarray:
    """The move of the player to act in every game of ``batch`` (-1 where its game is over), or of the games
    ``where`` (a ``(N,)`` bool; -1 elsewhere): whole-array work, so every game is valued either way."""
    mean, coins_left, masks = _batch_bag_facts(batch)
    values = batch.silver + (SILVER_FIELDS - batch.coins) * mean
    me = _players_to_act(batch)
    coin = _batch_place_coin(batch, values, mean, me)
    take = _batch_take_totem(batch, values, coins_left, masks, me)
    moves = np.where(batch.holds_coin(), coin, np.where(take, PLACE_TOTEM, DECLINE))
    moves[batch.player < 0] = -1
    if where is not None:
        moves[~np.asarray(where, dtype=bool)] = -1
    return moves


def _players_to_act(batch: WapiBatch) -> int | np.ndarray:
    """Each game's player to act (0 where over), or one int where every game still going has the same one
    (a search's rollouts: then every seat's arrays are read as views, which is faster)."""
    player = batch.player
    top = int(player.max())
    if ((player == top) | (player < 0)).all():
        return max(top, 0)
    return np.maximum(player, 0)


def _seat(array: np.ndarray, me: int | np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``array[me[c], ..., c]`` for every game c (an array whose first axis is the seat, last the game)."""
    if isinstance(me, int):
        return array[me]
    if array.ndim == 2:
        return array[me, columns]
    return array[me, :, columns].T  # numpy puts the indexed axis first


#: The search's samples drawn at once (``PlayerView.sample_determinizations``): a batch, for :func:`play_out`.
determinizations = WapiBatch.determinizations


def play_out(states: list[WapiState] | WapiBatch, first_moves: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every state (a list, or a batch of them from :data:`determinizations`) after each of ``first_moves``
    (legal in all of them), then played to the end with this strategy in every seat, all at once: the paired
    rollouts of ISMCTS. Returns the final scores and the winners (bool), both ``games x players``; game
    ``i * len(first_moves) + j`` is ``states[i]`` after ``first_moves[j]``."""
    given = states if isinstance(states, WapiBatch) else WapiBatch.from_states(states, placements=False)
    batch = given.repeat(len(first_moves))
    batch.step(np.tile(first_moves, given.num_games))
    play_to_end(batch)  # compiled: batch_policy's moves, without its numpy calls a ply
    return batch.scores(), batch.winners()


def _batch_bag_facts(batch: WapiBatch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`bag_facts` for every game: ``(N,)``, ``(N,)`` and ``(6, N)`` (sums of whole numbers: exact)."""
    coins = batch.bag_counts[:FIRST_MASK]
    left = coins.sum(axis=0)
    mean = (COIN_VALUE_ROW @ coins) / np.maximum(left, 1)  # 0 without coins, as bag_facts
    return mean, left, batch.bag_counts[FIRST_MASK:]


def _batch_place_coin(batch: WapiBatch, values: np.ndarray, mean: np.ndarray, me: int | np.ndarray) -> np.ndarray:
    """:func:`_place_coin` for every game (``me``: its player to act): the float operations in the same
    order, ties alike."""
    players = batch.game.num_players
    weights = batch.poles / np.maximum(batch.pole_count, 1) if batch.game.scoring == "shared" else batch.poles
    # mine by mine, as sum() adds: numpy sums an axis that is not the fastest in memory in order, and
    # pairwise only along the fastest ("Notes" of numpy.sum)
    expected = (weights * values).sum(axis=1)
    if isinstance(me, int):
        expected[me] = -np.inf
    else:
        expected[me, batch.columns] = -np.inf
    leader = expected.argmax(axis=0)  # the first of equals, as max() picks
    if isinstance(me, int):
        others = [weights[p] for p in range(players) if p != me]
    else:
        others = [weights[p] * (me != p) for p in range(players)]  # x * True is x, x * False is 0.0
    total = others[0]
    for weight in others[1:]:  # in seat order, as sum() adds (adding my 0.0 changes no sum)
        total = total + weight
    opp = (1 - LEADER_WEIGHT) * total / (players - 1) + LEADER_WEIGHT * _seat(weights, leader, batch.columns)
    mine = _seat(weights, me, batch.columns)
    gain = np.where(batch.coin_mines(), (TILE_VALUE[batch.drawn] - mean) * (mine - opp), -np.inf)
    return gain.argmax(axis=0)  # ties: the lowest mine


def _batch_take_totem(
    batch: WapiBatch, values: np.ndarray, coins_left: np.ndarray, masks: np.ndarray, me: int | np.ndarray
) -> np.ndarray:
    """:func:`_take_totem` for every game (False where the player has no totem left)."""
    worth = values / (batch.pole_count + 1) if batch.game.scoring == "shared" else values
    pole_value = worth + CONTROL_BONUS * (SILVER_FIELDS - batch.coins)
    now = pole_value[np.maximum(batch.drawn - FIRST_MASK, 0), batch.columns]
    masks_left = masks.sum(axis=0)
    mine_share = (COINS_TO_END - batch.coins_placed) * masks_left / (coins_left + 1) / batch.game.num_players
    better = (masks * (pole_value > now)).sum(axis=0)
    expected_better = mine_share * better / np.maximum(masks_left, 1)
    left = _seat(batch.totems_left, me, batch.columns)
    return (left > 0) & ((masks_left == 0) | (mine_share <= 0) | (expected_better < left))
