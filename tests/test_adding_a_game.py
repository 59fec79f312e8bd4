"""The checklist of ``docs/adding_a_game.md``: every piece a registered game must have, checked for each game of
``envs.GAMES``. A game added with a piece missing fails here, and the failure names the piece and the file."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import envs
from envs.core.batch import BatchGames, StateBatch, batch_class
from envs.core.engine import Game, GameState, Observer

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "adding_a_game.md"


def _module(name: str) -> ModuleType:
    assert importlib.util.find_spec(name) is not None, f"no module {name}"
    return importlib.import_module(name)


def _has(module: ModuleType, *names: str) -> None:
    missing = [name for name in names if not callable(getattr(module, name, None))]
    assert not missing, f"{module.__name__} lacks {missing}"


def _game(name: str) -> Game:
    return envs.describe(name).make()


def rules_engine(name: str) -> None:
    """``envs/<game>/rules.py``: the state, a :class:`GameState` whose ``_play`` applies one legal move."""
    state = _game(name).new_state(np.random.default_rng(0))
    assert isinstance(state, GameState) and type(state).__module__ == f"envs.{name}.rules"
    assert state.legal_actions() and state.current_player is not None and not state.is_terminal()


def actions(name: str) -> None:
    """``envs/<game>/actions.py``: the action map, and the game's size of the action space."""
    assert _module(f"envs.{name}.actions").NUM_ACTIONS == _game(name).num_actions


def description(name: str) -> None:
    """``envs/<game>/__init__.py``: ``DESCRIPTION``, the game's class and options (each one the game's
    ``config()`` names); the class named as the game."""
    found = envs.describe(name)
    assert found.name == name and issubclass(found.game_class, Game)
    assert {option.name for option in found.options} <= set(found.make().config())


def game_wiring(name: str) -> None:
    """``envs/<game>/game.py``: the Game class declares its sizes and layers, and deals from a seed."""
    game = _game(name)
    assert type(game).__module__ == f"envs.{name}.game"
    assert game.num_actions > 0 and game.num_players >= 2 and game.observation_size > 0
    first, again = (game.new_state(np.random.default_rng(7)) for _ in range(2))
    assert first.to_dict() == again.to_dict(), "one seed, one deal"


def observer(name: str) -> None:
    """``envs/<game>/observation.py``: the observer, its fixed-shape observation of each seat."""
    game = _game(name)
    assert issubclass(game.observer_class, Observer) and game.observer_class.__module__ == f"envs.{name}.observation"
    state = game.new_state(np.random.default_rng(0))
    assert all(state.observation(p).shape == (game.observation_size,) for p in range(game.num_players))


def save_and_load(name: str) -> None:
    """``envs/<game>/serialize.py``: the state as JSON-safe data and back, the same position."""
    game = _game(name)
    assert game.serializer.__name__ == f"envs.{name}.serialize"
    state = game.new_state(np.random.default_rng(0))
    state.apply(state.legal_actions()[0])
    again = game.state_from_dict(state.to_dict())
    assert again.to_dict() == state.to_dict() and again.legal_actions() == state.legal_actions()


def determinize(name: str) -> None:
    """``GameState.determinize``: what a player cannot see re-sampled, for the search agents."""
    state = _game(name).new_state(np.random.default_rng(0))
    copy = state.determinize(state.current_player, np.random.default_rng(1))
    assert isinstance(copy, type(state)) and copy.legal_actions() == state.legal_actions()


def render(name: str) -> None:
    """``envs/<game>/render.py``: the position as text and as an RGB image."""
    game = _game(name)
    assert game.renderer.__name__ == f"envs.{name}.render"
    state = game.new_state(np.random.default_rng(0))
    image = state.render_image()
    assert state.render_text().strip() and image.ndim == 3 and image.shape[2] == 3


def entry_points(name: str) -> None:
    """``envs/<game>_v0.py``: ``env``, ``raw_env``, ``vector_env``, ``sb3_vec_env`` and the env card (docstring)."""
    module = _module(envs.describe(name).env_module)
    _has(module, "env", "raw_env", "vector_env", "sb3_vec_env")
    assert module.__doc__ and "Action space" in module.__doc__ and "Observation space" in module.__doc__


def batched_engine(name: str) -> None:
    """``envs/<game>/batch.py``: ``BATCH_CLASS``, the game's own fast engine (not the generic StateBatch)."""
    found = batch_class(_game(name))
    assert issubclass(found, BatchGames) and found is not StateBatch and found.__module__ == f"envs.{name}.batch"


def heuristic(name: str) -> None:
    """``agents/heuristic/<game>.py``: ``choose(view, rng)`` for the agent and ``policy(state)`` for rollouts."""
    _has(_module(f"agents.heuristic.{name}"), "choose", "policy")


def training_defaults(name: str) -> None:
    """``training/settings.py``: the game's entry of ``GAME_TRAINING``, its differences from the defaults."""
    from training.settings import GAME_TRAINING, game_training

    assert name in GAME_TRAINING and game_training(name)["timesteps"] > 0


def web_view(name: str) -> None:
    """``web/views/<game>.py`` (``static``, ``board``, ``move_text``) and ``web/static/<game>.js`` (``BOARDS.<game>``
    with ``draw``, ``seatInfo``, ``hint``), loaded by ``web/static/index.html``."""
    _has(_module(f"web.views.{name}"), "static", "board", "move_text")
    script = (ROOT / "web" / "static" / f"{name}.js").read_text(encoding="utf-8")
    assert f"BOARDS.{name} = {{" in script and all(f"{part}(" in script for part in ("draw", "seatInfo", "hint"))
    assert f'<script src="/static/{name}.js"></script>' in (ROOT / "web" / "static" / "index.html").read_text()


def rules_page(name: str) -> None:
    """``docs/rules/<game>.md``: the rules in our own words, named by the rules engine's docstring."""
    assert (ROOT / "docs" / "rules" / f"{name}.md").is_file()
    assert f"docs/rules/{name}.md" in inspect.getsource(_module(f"envs.{name}.rules"))


def own_tests(name: str) -> None:
    """``tests/test_<game>_rules.py`` (a scenario for each rule) and ``tests/test_<game>_batch.py`` (the batched
    engine against the per-game one); the tests parametrised over ``envs.GAMES`` take the game by themselves."""
    assert (ROOT / "tests" / f"test_{name}_rules.py").is_file() and (ROOT / "tests" / f"test_{name}_batch.py").is_file()


#: The checklist, in the order the guide builds the pieces.
PIECES = (
    rules_engine,
    actions,
    rules_page,
    observer,
    save_and_load,
    determinize,
    render,
    game_wiring,
    description,
    entry_points,
    heuristic,
    batched_engine,
    training_defaults,
    web_view,
    own_tests,
)


@pytest.mark.parametrize("piece", PIECES, ids=[piece.__name__ for piece in PIECES])
@pytest.mark.parametrize("name", envs.GAMES)
def test_every_registered_game_has_every_piece(name, piece):
    piece(name)


def test_the_guide_names_every_piece_of_the_checklist_in_its_order():
    """The guide's checklist section lists the pieces, each by its name in this test, in the same order."""
    text = GUIDE.read_text(encoding="utf-8")
    checklist = text[text.index("## The checklist") :]
    named = re.findall(r"^\d+\. \*\*`(\w+)`\*\*", checklist, re.M)
    assert named == [piece.__name__ for piece in PIECES]


def test_a_missing_piece_is_named():
    """The checklist fails, naming what is missing, for a game without a piece (here: a heuristic of no game)."""
    with pytest.raises(AssertionError, match="no module agents.heuristic.chess"):
        heuristic("chess")
