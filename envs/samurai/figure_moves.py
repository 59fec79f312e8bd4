"""Where figures may go: the exchanges of a figure swap, and the placements of the figure draft.

Pure functions of the figures on the board (per settlement index, types ascending)
and the settlements on this board; the state caches :func:`swap_table` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from envs.samurai.actions import settlement_figure_action
from envs.samurai.board import CAPACITY, SETTLEMENTS

Figures = Sequence[Sequence[int]]


def swappable(figures: Figures, s1: int, t1: int, s2: int, t2: int) -> bool:
    """Figures of different types (so in different settlements), and afterwards no
    settlement holding two figures of one type."""
    return t1 != t2 and t2 not in figures[s1] and t1 not in figures[s2]


def swap_table(figures: Figures, settlements: Sequence[int]) -> list[list[bool]]:
    """``table[a][b]``: some settlement holds a figure of type a and none of type b."""
    table = [[False] * 3 for _ in range(3)]
    for s in settlements:
        figs = figures[s]
        for a in figs:
            for b in range(3):
                if b not in figs:
                    table[a][b] = True
    return table


def swap_possible(table: list[list[bool]]) -> bool:
    """Is there any legal exchange? A settlement must hold t1 without t2 and another t2 without t1."""
    return (table[0][1] and table[1][0]) or (table[0][2] and table[2][0]) or (table[1][2] and table[2][1])


def first_figures(figures: Figures, settlements: Sequence[int], table: list[list[bool]]) -> list[int]:
    """The figure swap's first figure: only those with a partner."""
    return [
        settlement_figure_action(s, t1)
        for s in settlements
        for t1 in figures[s]
        if any(t2 != t1 and t2 not in figures[s] and table[t2][t1] for t2 in range(3))
    ]


def partners(figures: Figures, settlements: Sequence[int], s1: int, t1: int) -> list[int]:
    """The figure swap's second figure, once the first is chosen."""
    return [
        settlement_figure_action(s2, t2)
        for s2 in settlements
        for t2 in figures[s2]
        if swappable(figures, s1, t1, s2, t2)
    ]


def draft_actions(figures: Figures, settlements: Sequence[int], supply: Sequence[int]) -> list[int]:
    """Draft: figures go on the cities first, then on the villages; never two of a type
    in one settlement (Edo is full from the start). No look-ahead is needed: the supply
    less Edo's (6 / 9 / 12 per type) is at least the open city places (4 / 4 / 6), so
    a city can always get a second, different type, and the villages take any type."""
    open_ = [s for s in settlements if len(figures[s]) < CAPACITY[SETTLEMENTS[s]]]
    cities = [s for s in open_ if CAPACITY[SETTLEMENTS[s]] > 1]
    return [
        settlement_figure_action(s, t)
        for s in (cities or open_)
        for t in range(3)
        if t not in figures[s] and supply[t] > 0
    ]
