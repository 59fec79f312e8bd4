"""The single-agent Gymnasium view (envs/single_agent.py): rewards in every ending, seats, check_env.

The reward tests use a stub game implementing the engine protocol, whose
actions end the game in chosen ways, so that each ending (the learner wins
or loses on its own move or on an opponent's, a shared win) is built
deterministically; a Wapi test builds one ending from an injected bag.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

from agents.opponents import make_opponent
from envs.core.engine import Game, GameState, Observer
from envs.games import available_games, make_game
from envs.single_agent import ILLEGAL_ACTION_REWARD, SingleAgentEnv
from envs.wapi.actions import DECLINE, PLACE_TOTEM

PASS, I_WIN, NEXT_WINS, SHARE_WITH_NEXT, ALL_SHARE = range(5)


class StubState(GameState):
    """Players take turns; an action passes or ends the game with chosen winners.

    Scores: 10 for each winner, 0 for the others (so the score reward mode is checkable).
    """

    def __init__(self, game: StubGame):
        self.game = game
        self.current_player = 0
        self.winner_list: list[int] = []
        self.turns = 0

    def _compute_legal(self) -> tuple[int, ...]:
        return () if self.current_player is None else tuple(range(5))

    def _play(self, action: int) -> None:  # GameState.apply has checked it
        p, n = self.current_player, self.game.num_players
        self.turns += 1
        ends = {
            I_WIN: [p],
            NEXT_WINS: [(p + 1) % n],
            SHARE_WITH_NEXT: sorted([p, (p + 1) % n]),
            ALL_SHARE: list(range(n)),
        }
        if action in ends:
            self.winner_list, self.current_player = ends[action], None
        else:
            self.current_player = (p + 1) % n

    def scores(self) -> list[float]:
        return [10.0 if p in self.winner_list else 0.0 for p in range(self.game.num_players)]

    def winners(self) -> list[int]:
        return list(self.winner_list)

    def clone(self) -> StubState:
        other = StubState(self.game)
        other.__dict__.update(self.__dict__)
        other.winner_list = list(self.winner_list)
        return other

    def determinize(self, player: int, rng: np.random.Generator) -> StubState:
        return self.clone()

    def describe_action(self, action: int) -> str:
        return ["pass", "I win", "next wins", "share with next", "all share"][action]


class StubObserver(Observer):
    """Sees only how many turns were played (capped at 10)."""

    def observe(self, state: StubState, player: int) -> np.ndarray:
        obs = np.zeros(self.game.observation_size, dtype=np.float32)
        obs[0] = min(state.turns, 10) / 10
        return obs


class StubGame(Game):
    name = "stub"
    num_actions = 5
    observation_size = 3

    def __init__(self, num_players: int = 2):
        self.num_players = num_players

    def new_state(self, rng, options=None) -> StubState:
        return StubState(self)

    def state_from_dict(self, data):
        raise NotImplementedError

    def observer(self) -> StubObserver:
        return StubObserver(self)

    def state_to_dict(self, state: StubState) -> dict[str, Any]:
        return dict(state.__dict__, game=None)

    def render_text(self, state: StubState, perspective: int | None = None) -> str:
        return f"turn {state.turns}"

    def render_image(self, state: StubState) -> np.ndarray:
        return np.zeros((1, 1, 3), dtype=np.uint8)


def scripted(*actions: int):
    """An opponent playing the given actions in order (then passing)."""
    moves = list(actions)
    return lambda state, player: moves.pop(0) if moves else PASS


def play(env: SingleAgentEnv, seat: int, learner_actions: list[int]):
    """Reset with the learner in ``seat`` and play its actions; return the last step's result."""
    env.reset(seed=0, options={"seat": seat})
    for action in learner_actions:
        result = env.step(action)
        if result[2]:
            return result
    raise AssertionError("the game did not end")


# --- rewards in every ending -------------------------------------------------------------
@pytest.mark.parametrize("seat", [0, 1])
def test_learner_wins_on_its_own_move(seat):
    env = SingleAgentEnv(StubGame(2), [scripted(PASS)])
    _, reward, terminated, truncated, info = play(env, seat, [I_WIN])
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["winners"] == [seat] and info["is_success"] and info["win_points"] == 1.0


@pytest.mark.parametrize("seat", [0, 1])
def test_learner_loses_on_its_own_move(seat):
    env = SingleAgentEnv(StubGame(2), [scripted(PASS)])
    _, reward, terminated, _, info = play(env, seat, [NEXT_WINS])
    assert (reward, terminated) == (-1.0, True)
    assert info["winners"] == [1 - seat] and not info["is_success"] and info["win_points"] == 0.0


@pytest.mark.parametrize("seat", [0, 1])
def test_learner_wins_when_the_game_ends_on_an_opponents_move(seat):
    """The tutorial bug: the game ends on the opponent's move, and the learner must still get +1."""
    env = SingleAgentEnv(StubGame(2), [scripted(PASS, NEXT_WINS) if seat == 1 else scripted(NEXT_WINS)])
    _, reward, terminated, _, info = play(env, seat, [PASS])
    assert (reward, terminated) == (1.0, True)
    assert info["winners"] == [seat]


@pytest.mark.parametrize("seat", [0, 1])
def test_learner_loses_when_the_game_ends_on_an_opponents_move(seat):
    env = SingleAgentEnv(StubGame(2), [scripted(PASS, I_WIN) if seat == 1 else scripted(I_WIN)])
    _, reward, terminated, _, _ = play(env, seat, [PASS])
    assert (reward, terminated) == (-1.0, True)


def test_losing_on_a_third_players_move_in_a_three_player_game():
    """Seat 0 passes, seat 1 passes, seat 2 ends it with a win for itself: the learner (seat 0) loses."""
    env = SingleAgentEnv(StubGame(3), [scripted(PASS, I_WIN)])  # one callable plays both seats 1 and 2
    _, reward, terminated, _, info = play(env, 0, [PASS])
    assert (reward, terminated, info["winners"]) == (-1.0, True, [2])


def test_shared_win_with_one_other_player():
    """Win mode: a shared win is still a win (+1) for each winner; win points 1/k."""
    env = SingleAgentEnv(StubGame(3), [scripted(PASS)])
    _, reward, _, _, info = play(env, 0, [SHARE_WITH_NEXT])
    assert reward == 1.0 and info["winners"] == [0, 1]
    assert info["win_points"] == 0.5 and not info["is_success"]


def test_shared_win_by_everyone_is_zero_and_on_an_opponents_move():
    env = SingleAgentEnv(StubGame(2), [scripted(ALL_SHARE)])
    _, reward, terminated, _, info = play(env, 0, [PASS])
    assert (reward, terminated, info["win_points"]) == (0.0, True, 0.5)


def test_score_reward_mode_gives_own_score_minus_others_mean():
    env = SingleAgentEnv(StubGame(3), [scripted(PASS, I_WIN)], reward="score")
    _, reward, _, _, info = play(env, 0, [PASS])
    assert info["scores"] == [0.0, 0.0, 10.0]
    assert reward == pytest.approx(0.0 - 5.0)


def test_wapi_game_ending_on_the_opponents_move_rewards_the_learner():
    """A real game from an injected bag: the learner (seat 0) takes a totem on mine 0, then the
    30 coins alternate, so the opponent places the 30th and ends the game; the opponent never
    took a totem, so the learner wins on the opponent's move and must get +1."""
    game = make_game("wapi", num_players=2)
    coins = ["S5"] * 8 + ["S3"] * 8 + ["S2"] * 12 + ["S1"] * 12 + ["S0"] * 8
    masks = ["M0"] * 3 + ["M1"] * 3 + [f"M{k}" for k in range(2, 6) for _ in range(4)]
    bag = ["M0", "M1"] + coins + masks

    def decline_and_first_mine(state, player):
        return DECLINE if DECLINE in state.legal_actions() else state.legal_actions()[0]

    env = SingleAgentEnv(game, [decline_and_first_mine])
    env.reset(seed=0, options={"seat": 0, "bag": bag})
    obs, reward, terminated, _, info = env.step(PLACE_TOTEM)  # totem on mine 0
    steps = 1
    while not terminated:
        assert reward == 0.0
        obs, reward, terminated, _, info = env.step(env.state.legal_actions()[0])
        steps += 1
    assert env.state.current_player is None and steps == 16  # 1 totem + 15 coins; the opponent placed the 30th
    assert info["winners"] == [0] and reward == 1.0
    assert obs.shape == (game.observation_size,)


# --- seats, masks, bad input -------------------------------------------------------------
def test_the_learner_plays_every_seat_and_seats_follow_the_seed():
    env = SingleAgentEnv(make_game("wapi", num_players=4), [make_opponent("random", make_game("wapi"), 0)])
    seats = [env.reset(seed=s)[1]["seat"] for s in range(60)]
    assert set(seats) == {0, 1, 2, 3}
    assert seats == [env.reset(seed=s)[1]["seat"] for s in range(60)]


def test_action_masks_are_the_learners_legal_actions():
    game = make_game("wapi", num_players=3)
    env = SingleAgentEnv(game, [make_opponent("random", game, 0)])
    env.reset(seed=3)
    for _ in range(20):
        mask = env.action_masks()
        assert env.state.current_player == env.seat
        assert np.flatnonzero(mask).tolist() == env.state.legal_actions()
        if env.step(int(np.flatnonzero(mask)[0]))[2]:
            env.reset()


def test_an_illegal_action_ends_the_episode_as_a_loss():
    env = SingleAgentEnv(make_game("wapi", num_players=2), [scripted()])
    env.reset(seed=0)
    illegal = next(a for a in range(env.game.num_actions) if not env.action_masks()[a])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (ILLEGAL_ACTION_REWARD, True, True)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="reward"):
        SingleAgentEnv(StubGame(), [scripted()], reward="points")
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(StubGame(2), [scripted()], seat=2)
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv(StubGame(2), [])


@pytest.mark.parametrize("name", available_games())
def test_check_env_passes(name):
    game = make_game(name)
    env = SingleAgentEnv(game, [make_opponent("random", game, 0)])
    check_env(env, warn=True)
