"""The winner procedure of Samurai (``samurai.md``, "Winner"), as a pure function of the captures."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def majorities(captured: Sequence[Sequence[int]]) -> list[list[int]]:
    """Per player, the figure types in which they hold the majority:
    strictly more figures of the type than every other player (rule 1)."""
    held: list[list[int]] = [[] for _ in captured]
    for t in range(3):
        counts = [c[t] for c in captured]
        best = max(counts)
        if counts.count(best) == 1:
            held[counts.index(best)].append(t)
    return held


def _most(players: Iterable[int], value: Sequence[int] | dict[int, int]) -> list[int]:
    """The players with the highest ``value`` (several on a tie)."""
    players = list(players)
    best = max(value[p] for p in players)
    return [p for p in players if value[p] == best]


def winners(captured: Sequence[Sequence[int]]) -> list[int]:
    """The winners, ascending, from each player's captured [helmet, buddha, rice]."""
    held = majorities(captured)
    total = [sum(c) for c in captured]
    # Rule 2: the majority in two or more types wins (at most one player can have it).
    two = [p for p, types in enumerate(held) if len(types) >= 2]
    if two:
        return two
    # Rule 3: only players with exactly one majority stay in contention;
    # each counts their figures of the other two types; most wins.
    contenders = [p for p, types in enumerate(held) if len(types) == 1]
    if not contenders:
        # Rule 4 (ours): nobody has a majority: most figures in total; ties share.
        return _most(range(len(captured)), total)
    others = {p: total[p] - captured[p][held[p][0]] for p in contenders}
    top = _most(contenders, others)
    # Rule 4 (ours): contenders still tied: most figures in total; still tied, shared.
    return top if len(top) == 1 else _most(top, total)
