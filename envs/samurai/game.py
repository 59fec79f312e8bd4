"""The Samurai game: a configured table that deals states and wires the layers together
(rules in ``rules.py``, the observer in ``observation.py``, state as data in
``serialize.py``, pictures in ``render.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.engine import Game, check_bool, check_choice, check_options
from envs.samurai import render, serialize
from envs.samurai.actions import NUM_ACTIONS
from envs.samurai.board import LAYOUTS, PLAYER_COUNTS
from envs.samurai.components import DRAFT_SETUP, FIGURE_SETUPS
from envs.samurai.observation import OBSERVATION_SIZE, SamuraiObserver
from envs.samurai.rules import SamuraiState
from envs.samurai.setup import draft_figures, figures_option, piles_option, random_figures, random_piles


class SamuraiGame(Game):
    """A configured Samurai table: player count, hand choice, figure set-up."""

    name = "samurai"
    num_actions = NUM_ACTIONS
    reward_modes = ("win",)
    observation_size = OBSERVATION_SIZE
    observer_class = SamuraiObserver
    serializer = serialize
    renderer = render

    def __init__(self, num_players: int = 2, choose_hand: bool = False, figure_setup: str = "random"):
        check_choice("num_players", num_players, PLAYER_COUNTS)
        check_bool("choose_hand", choose_hand)
        check_choice("figure_setup", figure_setup, FIGURE_SETUPS)
        self.num_players = num_players
        self.choose_hand = choose_hand
        self.figure_setup = figure_setup
        self.layout = LAYOUTS[num_players]

    def config(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "choose_hand": self.choose_hand, "figure_setup": self.figure_setup}

    def new_state(self, rng: np.random.Generator, options: dict[str, Any] | None = None) -> SamuraiState:
        """Every option is checked before anything is drawn; then the piles are shuffled
        (player 0 first) and the figures placed (random set-up) or Edo's set for the draft."""
        options = check_options(options, {"piles", "figures"})
        if "figures" in options and self.figure_setup == DRAFT_SETUP:
            raise ValueError("options['figures'] cannot be combined with figure_setup='draft' (the players place them)")
        piles = piles_option(options["piles"], self.num_players) if "piles" in options else None
        figures = figures_option(options["figures"], self.layout) if "figures" in options else None
        if piles is None:
            piles = random_piles(self.num_players, rng)
        if figures is None and self.figure_setup == DRAFT_SETUP:
            figures = draft_figures(self.layout)
        elif figures is None:
            figures = random_figures(self.layout, rng)
        return SamuraiState(self, piles, figures)
