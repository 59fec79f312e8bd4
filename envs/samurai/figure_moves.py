"""Where figures may go: the exchanges of a figure swap, and the placements of the figure draft."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.samurai.actions import FIGURE
from envs.samurai.board import CAPACITY, SETTLEMENTS

if TYPE_CHECKING:
    from envs.samurai.rules import SamuraiState


def swappable(state: SamuraiState, s1: int, t1: int, s2: int, t2: int) -> bool:
    """Figures of different types (so in different settlements), and afterwards no
    settlement holding two figures of one type."""
    return t1 != t2 and t2 not in state.figures[s1] and t1 not in state.figures[s2]


def swap_table(state: SamuraiState) -> list[list[bool]]:
    """``table[a][b]``: some settlement holds a figure of type a and none of type b
    (cached on the state until figures move)."""
    if state.swap_table is None:
        table = [[False] * 3 for _ in range(3)]
        for s in state.layout.settlements:
            figs = state.figures[s]
            for a in figs:
                for b in range(3):
                    if b not in figs:
                        table[a][b] = True
        state.swap_table = table
    return state.swap_table


def swap_possible(state: SamuraiState) -> bool:
    """Is there any legal exchange? A settlement must hold t1 without t2 and another t2 without t1."""
    table = swap_table(state)
    return (table[0][1] and table[1][0]) or (table[0][2] and table[2][0]) or (table[1][2] and table[2][1])


def swap_actions(state: SamuraiState) -> list[int]:
    """The figure swap's first figure (only those with a partner), or, once chosen, its partners."""
    placed = [(s, state.figures[s]) for s in state.layout.settlements if state.figures[s]]
    if state.first_figure is None:
        table = swap_table(state)
        return [FIGURE + 3 * s + t1 for s, figs in placed for t1 in figs
                if any(t2 != t1 and t2 not in figs and table[t2][t1] for t2 in range(3))]
    s1, t1 = state.first_figure
    return [FIGURE + 3 * s2 + t2 for s2, figs in placed for t2 in figs if swappable(state, s1, t1, s2, t2)]


def draft_actions(state: SamuraiState) -> list[int]:
    """Draft: figures go on the cities (Edo included) first, then on the villages;
    never two of a type in one settlement. (With supplies of 7/10/13 per type and
    7/7/9 city places, a city can always be completed, so no look-ahead is needed.)"""
    open_ = [s for s in state.layout.settlements if len(state.figures[s]) < CAPACITY[SETTLEMENTS[s]]]
    cities = [s for s in open_ if CAPACITY[SETTLEMENTS[s]] > 1]
    return [FIGURE + 3 * s + t for s in (cities or open_) for t in range(3)
            if t not in state.figures[s] and state.supply_left[t] > 0]
