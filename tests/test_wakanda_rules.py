"""Wakanda rules, one scenario per rule and decision of ``docs/rules/wakanda.md``: inject the
bag and the villages (or load a position), play scripted moves, assert the exact state and scores."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from envs.core import IllegalActionError
from envs.wakanda import WakandaGame
from envs.wakanda import observation as ob
from envs.wakanda.actions import NUM_ACTIONS, build_action, decode, finish_action
from envs.wakanda.components import ALL_PIECES, PIECE_OF_NAME, PIECES, VILLAGES

RNG = np.random.default_rng(0)
ALL = [PIECES[k] for k in ALL_PIECES]
LINE = ["eagle", "chief", "tomahawk", "skin", "tipi", "sun"]  # variety and height in the box


def bag(*first: str) -> list[str]:
    """A full draw order starting with ``first``, the rest in a fixed order."""
    return list(first) + sorted((Counter(ALL) - Counter(first)).elements())


def start(*draws: str, villages=LINE, advanced: bool = False):
    return WakandaGame(advanced).new_state(RNG, {"bag": bag(*draws), "villages": list(villages)})


def build(piece: str, slot: int) -> int:
    """The action building ``piece`` (by name) on ``slot``."""
    return build_action(PIECE_OF_NAME[piece], slot)


finish = finish_action


def is_finish(action: int) -> bool:
    return decode(action)[0] is None


def play(state, *actions: int):
    for action in actions:
        state.apply(action)
    return state


def view(state) -> dict:
    return state.to_dict()


def totems(state) -> list[list[str]]:
    return [v["totem"] for v in view(state)["villages"]]


def position(
    line,
    owners,
    stacks,
    scores,
    winner,
    *,
    third=None,
    supplies=None,
    bag_left=None,
    current_player=None,
    advanced=False,
):
    """A state_dict for a hand-made position; the pieces not on totems go to the supplies and the
    bag as the turn structure requires (at the end with 6 totems finished: 6 held, the rest in the
    bag). ``scores`` and ``winner`` are the expected values: loading checks them against the engine."""
    left = sorted((Counter(ALL) - Counter(p for s in stacks for p in s)).elements())
    if supplies is None:
        held = left[:6]
        supplies, bag_left = [held[0::2], held[1::2]], left[6:]
    if third is None:
        done = [p for p in (0, 1) if owners.count(p) == 3]
        third = done[0] if len(done) == 1 else (0 if done else None)
    finished = sum(o is not None for o in owners)
    return {
        "game": "wakanda",
        "advanced": advanced,
        "current_player": current_player,
        "villages": [
            {
                "kind": k,
                "available": v < 3 + finished,
                "face_up": not advanced or v < 3 + finished,
                "owner": owners[v],
                "totem": list(stacks[v]),
            }
            for v, k in enumerate(line)
        ],
        "removed_villages": [k for k in VILLAGES if k not in line],
        "supplies": supplies,
        "headdresses_left": [3 - owners.count(0), 3 - owners.count(1)],
        "bag": list(bag_left),
        "scores": scores,
        "third_headdress_first": third,
        "terminal": current_player is None,
        "winner": winner,
    }


def load(data, advanced: bool = False):
    return WakandaGame(advanced).state_from_dict(data)


# The seed's worked example (A: tipi, eagle and height villages; B: tomahawk, variety and sun),
# shared with the env tests.
WORKED_VILLAGES = ["height", "tomahawk", "sun", "variety", "tipi", "eagle"]
WORKED_DRAWS = [
    "tipi",
    "tomahawk",
    "tipi",
    "sun",
    "eagle",
    "sun",
    "sun",
    "sun",
    "sun",
    "chief",
    "skin",
    "tomahawk",
    "skin",
    "sun",
    "chief",
    "tipi",
    "tipi",
    "tomahawk",
    "skin",
]
WORKED_MOVES = [
    build("tipi", 0),
    build("tomahawk", 1),
    build("tipi", 0),
    build("sun", 1),
    build("eagle", 0),
    build("sun", 2),
    build("sun", 0),
    build("sun", 2),
    build("sun", 0),
    finish(1),
    finish(0),
    build("tomahawk", 3),
    build("skin", 4),
    build("sun", 3),
    finish(4),
    finish(2),
    build("skin", 5),
    finish(3),
    finish(5),
]


# --- setup and turn structure -----------------------------------------------------------


def test_setup_21_pieces_8_villages_6_in_line_3_available_player_0_draws_first():
    """Setup: 21 pieces (eagle x1 .. sun x6); shuffle the 8 villages, 2 go back in the box, 6 in a
    line of which the first 3 are available; 3 headdresses each; player_0 starts (and has drawn)."""
    assert Counter(ALL) == {"eagle": 1, "chief": 2, "tomahawk": 3, "skin": 4, "tipi": 5, "sun": 6}
    data = view(WakandaGame().new_state(np.random.default_rng(5)))
    kinds = [v["kind"] for v in data["villages"]]
    assert sorted(kinds + data["removed_villages"]) == sorted(VILLAGES) and len(data["removed_villages"]) == 2
    assert [v["available"] for v in data["villages"]] == [True, True, True, False, False, False]
    assert data["current_player"] == 0 and data["headdresses_left"] == [3, 3]
    assert len(data["supplies"][0]) == 1 and data["supplies"][1] == [] and len(data["bag"]) == 20
    assert Counter(data["bag"] + data["supplies"][0]) == Counter(ALL)


def test_turn_draw_then_act_and_the_supply_grows():
    """Turn: 1. draw a piece into your own supply; 2. build or finish. Pieces stay in the supply
    until placed; any piece of the supply may be built, not only the one just drawn."""
    state = start("sun", "chief", "eagle", "tipi", "skin")
    assert view(state)["supplies"] == [["sun"], []]
    play(state, build("sun", 0))  # player 0 builds the sun just drawn
    assert view(state)["supplies"] == [[], ["chief"]] and state.current_player == 1
    play(state, finish(0))  # player 1 finishes instead: the chief stays in their supply
    assert view(state)["supplies"] == [["eagle"], ["chief"]]
    play(state, build("eagle", 1))
    assert view(state)["supplies"] == [[], ["chief", "tipi"]]
    play(state, build("chief", 1))  # an older piece, not the tipi just drawn
    assert view(state)["supplies"] == [["skin"], ["tipi"]]
    assert totems(state)[:2] == [["sun"], ["eagle", "chief"]]
    assert view(state)["bag"] == bag("sun", "chief", "eagle", "tipi", "skin")[5:]


def test_build_starts_or_tops_a_totem_on_available_unclaimed_villages_only():
    """Build: put a piece on any available, unclaimed village, on top of the totem there or
    starting it if the village is empty; tilted villages cannot be built on. Both players build on
    every totem."""
    state = start("tipi", "sun", "skin")
    assert state.legal_actions() == [build("tipi", v) for v in (0, 1, 2)]
    for tilted in (3, 4, 5):
        with pytest.raises(IllegalActionError):
            state.apply(build("tipi", tilted))
    play(state, build("tipi", 2), build("sun", 2))  # player 1 builds on the same totem
    assert totems(state)[2] == ["tipi", "sun"]
    play(state, finish(2))  # claimed by player 0: nobody builds there any more; slot 3 is revealed
    assert view(state)["supplies"][1] == ["chief"]
    assert state.legal_actions() == [build("chief", v) for v in (0, 1, 3)]
    with pytest.raises(IllegalActionError):
        state.apply(build("chief", 2))


def test_finish_claims_the_village_and_reveals_the_tilted_ones_in_line_order():
    """Finish: put a headdress on a totem under construction; you own that totem and village. If a
    tilted village remains, the next one in line becomes available (one per finished totem)."""
    state = start("sun", "sun", "sun", "tipi", "tipi", "tipi", "tipi", "tipi")
    play(state, build("sun", 1), build("sun", 0), build("sun", 2))
    availability = []
    for slot in (1, 0, 2):
        play(state, finish(slot))
        availability.append([v["available"] for v in view(state)["villages"]])
    assert availability == [[True] * 4 + [False] * 2, [True] * 5 + [False], [True] * 6]
    assert [v["owner"] for v in view(state)["villages"]] == [0, 1, 1, None, None, None]
    assert view(state)["headdresses_left"] == [2, 1]
    play(state, build("tipi", 3), finish(3))
    assert [v["available"] for v in view(state)["villages"]] == [True] * 6, "nothing left to reveal"


def test_an_empty_totem_cannot_be_finished():
    """Decision: a totem must have at least one piece to be finished."""
    state = start("eagle")
    assert not any(map(is_finish, state.legal_actions())), "no totem under construction yet"
    before = view(state)
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply(finish(0))
    assert view(state) == before
    play(state, build("eagle", 0))
    assert [a for a in state.legal_actions() if is_finish(a)] == [finish(0)]


def test_no_passing_every_action_places_a_piece_or_a_headdress():
    """Turn: do exactly one of build or finish; passing is not allowed (no pass action exists)."""
    assert NUM_ACTIONS == 6 * 6 + 6
    state = start("skin")
    assert state.legal_actions(), "a player with a piece can always build"
    for bad in (-1, NUM_ACTIONS, 99):
        with pytest.raises(IllegalActionError):
            state.apply(bad)
    pieces_before = sum(len(t) for t in totems(state))
    play(state, state.legal_actions()[0])
    assert sum(len(t) for t in totems(state)) == pieces_before + 1


def test_a_player_without_headdresses_keeps_drawing_and_building():
    """End: a player with no headdress left keeps playing (drawing and building)."""
    state = start("tipi", "sun", "skin", "tipi", "skin", "tipi", "skin", "tipi", "eagle", "chief")
    play(
        state,
        build("tipi", 0),
        build("sun", 1),
        finish(0),
        build("tipi", 2),
        finish(1),
        build("tipi", 3),
        finish(2),
        build("tipi", 4),
    )
    data = view(state)
    assert data["headdresses_left"] == [0, 3] and data["third_headdress_first"] == 0
    assert state.current_player == 0 and data["supplies"][0] == ["eagle", "skin", "skin", "skin"]
    assert state.legal_actions() == [build(p, v) for p in ("eagle", "skin") for v in (3, 4, 5)]
    play(state, build("eagle", 5))
    assert view(state)["supplies"][0] == ["skin", "skin", "skin"]


def test_a_player_who_cannot_act_is_skipped_and_the_game_ends_when_neither_can():
    """End: a player who cannot act at all is skipped; if neither can act the game ends there. A
    village revealed late may hold no piece: it stays unowned (players own fewer than 3)."""
    stacks = [["eagle"] + ["sun"] * 6, ["chief"] * 2 + ["tomahawk"] * 3, ["skin"] * 3 + ["tipi"] * 5, [], [], []]
    owners = [1, 1, 1, None, None, None]
    # player 1 owns eagle, chief, tomahawk: 8 + 10 + 12 - 6 suns = 24; player 0 owns nothing yet.
    state = load(position(LINE, owners, stacks, [0, 24], None, supplies=[["skin"], []], bag_left=[], current_player=0))
    assert state.legal_actions() == [build("skin", v) for v in (3, 4, 5)]
    play(state, build("skin", 3))
    assert state.current_player == 0, "player 1 has no piece and no headdress: skipped"
    assert state.legal_actions() == [finish(3)]
    play(state, finish(3))
    data = view(state)
    assert data["terminal"] and data["current_player"] is None, "neither player can act"
    assert [v["owner"] for v in data["villages"]] == [1, 1, 1, 0, None, None]
    assert data["scores"] == [3, 24] and data["winner"] == 1 and data["headdresses_left"] == [2, 0]


# --- scoring ---------------------------------------------------------------------------


def final(line, owners, stacks, scores, winner, third=None):
    state = load(position(line, owners, stacks, scores, winner, third=third))
    assert state.is_terminal() and state.int_scores() == scores
    return state


def test_eagle_village_scores_8_per_eagle_on_all_the_owners_totems():
    """Scoring: each owned village scores over all of its owner's totems; eagle: 8 per eagle."""
    # p0: eagle village [skin], tomahawk [eagle], tipi [skin] -> 8 (the eagle sits on another totem)
    # p1: chief [chief], skin [skin, skin], sun [sun] -> 5 + 6 + 1
    final(LINE, [0, 1, 0, 1, 0, 1], [["skin"], ["chief"], ["eagle"], ["skin", "skin"], ["skin"], ["sun"]], [8, 12], 1)


def test_chief_village_scores_5_per_chief():
    """Scoring: chief: 5 per chief."""
    # p0: chief [tipi], skin [chief, chief], sun [tipi] -> 10 + 0 + 0; p1: eagle, tomahawk, tipi [tipi] each -> 6
    final(LINE, [1, 0, 1, 0, 1, 0], [["tipi"], ["tipi"], ["tipi"], ["chief", "chief"], ["tipi"], ["tipi"]], [10, 6], 0)


def test_tomahawk_village_scores_4_per_tomahawk():
    """Scoring: tomahawk: 4 per tomahawk."""
    # p0: tomahawk [eagle], skin [tomahawk x2], tipi [tomahawk] -> 12; p1: eagle [chief], chief [chief], sun [sun x2]
    # -> 0 + 10 + 2 = 12; a tie, won by whoever placed a third headdress first (here player 1)
    final(
        LINE,
        [1, 1, 0, 0, 0, 1],
        [["chief"], ["chief"], ["eagle"], ["tomahawk", "tomahawk"], ["tomahawk"], ["sun", "sun"]],
        [12, 12],
        1,
        third=1,
    )


def test_skin_village_scores_3_per_skin():
    """Scoring: animal skin: 3 per skin."""
    # p0: eagle [skin x3], chief [skin], skin [tipi] -> 12; p1: tomahawk [tomahawk], tipi [tipi], sun [sun] -> 4 + 2 + 1
    final(LINE, [0, 0, 1, 0, 1, 1], [["skin"] * 3, ["skin"], ["tomahawk"], ["tipi"], ["tipi"], ["sun"]], [12, 7], 0)


def test_tipi_village_scores_2_per_tipi():
    """Scoring: tipi: 2 per tipi."""
    # p0: eagle [tipi x2], chief [tipi x3], tipi [skin] -> 10; p1: tomahawk, skin, sun [sun] each -> 0 + 0 + 3
    final(LINE, [0, 0, 1, 1, 0, 1], [["tipi"] * 2, ["tipi"] * 3, ["sun"], ["sun"], ["skin"], ["sun"]], [10, 3], 0)


def test_variety_village_scores_2_per_distinct_symbol_at_most_12():
    """Scoring: variety: 2 per distinct symbol (max 12) on the owner's totems."""
    line = ["variety", "height", "sun", "eagle", "chief", "tipi"]
    # p0: variety [eagle, chief], sun [tomahawk, skin], chief [tipi, sun] -> 6 symbols = 12, + 1 sun, + 5 chief
    # p1: height [tipi x3], eagle [skin], tipi [sun] -> 2 x 3 + 0 + 2 x 3 tipis - 1 sun (no sun village)
    final(
        line,
        [0, 1, 0, 1, 0, 1],
        [["eagle", "chief"], ["tipi"] * 3, ["tomahawk", "skin"], ["skin"], ["tipi", "sun"], ["sun"]],
        [18, 11],
        0,
    )


def test_height_village_scores_2_per_piece_of_the_tallest_totem_headdress_not_counted():
    """Scoring: height: 2 per piece of the owner's tallest totem; headdresses are not pieces."""
    line = ["variety", "height", "sun", "eagle", "chief", "tipi"]
    # p0: variety [tomahawk], height [skin x4, chief], eagle [sun] -> 4 symbols = 8, tallest 5 pieces = 10, -1 sun
    # p1: sun [sun x2], chief [chief], tipi [tipi x2] -> 2 + 5 + 4
    final(
        line,
        [0, 0, 1, 0, 1, 1],
        [["tomahawk"], ["skin"] * 4 + ["chief"], ["sun", "sun"], ["sun"], ["chief"], ["tipi", "tipi"]],
        [17, 11],
        0,
    )


def test_sun_village_owner_gains_1_per_sun_and_the_other_player_loses_1_per_sun():
    """Scoring: sun: +1 per sun for its owner; every player who does not own the sun village loses
    1 point per sun on their totems."""
    # p0: eagle [sun], chief [chief], sun [sun x3] -> 0 + 5 + 4 (no penalty for the owner)
    # p1: tomahawk [sun, tomahawk], skin [skin, sun], tipi [tipi] -> 4 + 3 + 2 - 2 suns
    final(
        LINE,
        [0, 0, 1, 1, 1, 0],
        [["sun"], ["chief"], ["sun", "tomahawk"], ["skin", "sun"], ["tipi"], ["sun"] * 3],
        [9, 7],
        0,
    )


def test_sun_penalty_applies_to_everyone_when_the_sun_village_is_not_in_the_game():
    """Scoring: the sun penalty applies to every player who does not own the sun village,
    including when the sun village is not in the game."""
    line = ["eagle", "chief", "tomahawk", "skin", "tipi", "variety"]
    # p0: eagle [eagle, sun, sun], chief [sun], tomahawk [sun] -> 8 - 4
    # p1: skin [sun, skin], tipi [tipi], variety [sun] -> 3 + 2 + 2 x 3 symbols - 2
    final(
        line,
        [0, 0, 0, 1, 1, 1],
        [["eagle", "sun", "sun"], ["sun"], ["sun"], ["sun", "skin"], ["tipi"], ["sun"]],
        [4, 9],
        1,
        third=0,
    )


def drawn_position() -> dict:
    """A finished game tied 17 all with the sun village unowned and nobody out of headdresses: a draw."""
    line = ["eagle", "tipi", "chief", "tomahawk", "skin", "sun"]
    stacks = [
        ["eagle", "sun"],
        ["tipi"] * 5,
        ["chief", "chief", "sun", "sun", "sun"],
        ["tomahawk"] * 3 + ["skin"] * 4 + ["sun", "sun"],
        [],
        [],
    ]
    # p0: eagle 8 + tipi 10 - 1 sun = 17; p1: chief 10 + tomahawk 12 - 5 suns = 17
    return position(line, [0, 0, 1, 1, None, None], stacks, [17, 17], None, supplies=[[], []], bag_left=[])


def test_sun_penalty_for_both_when_the_sun_village_stays_unowned_and_a_tie_without_third_headdress_is_a_draw():
    """Scoring: a sun village in play but unowned (the game ended with it empty) penalises both
    players. Tie-break: the third headdress placed first; if nobody placed one, a draw (decision)."""
    state = load(drawn_position())
    assert state.is_terminal() and view(state)["third_headdress_first"] is None
    assert state.winners() == [0, 1] and state.rewards("win") == [0.0, 0.0] and state.rewards("score") == [0.0, 0.0]


def test_tie_is_won_by_the_player_who_placed_their_third_headdress_first():
    """Scoring: highest score wins; tie: the player who placed their third headdress first wins."""
    line = ["eagle", "tipi", "chief", "tomahawk", "skin", "sun"]
    stacks = [
        ["eagle", "chief", "chief"],
        ["tipi"] * 5,
        ["sun", "sun"],
        ["tomahawk"] * 3 + ["sun"] * 2,
        ["skin"] * 4 + ["sun"] * 2,
        [],
    ]
    # p0: eagle 8 + tipi 10 = 18; p1: chief 0 + tomahawk 12 + skin 12 - 6 suns = 18; only p1 placed a third
    state = load(position(line, [0, 0, 1, 1, 1, None], stacks, [18, 18], 1, supplies=[[], []], bag_left=[]))
    assert state.winners() == [1] and state.rewards("win") == [-1.0, 1.0] and state.rewards("score") == [0.0, 0.0]


def test_the_seeds_worked_example_20_against_16_played_out():
    """Scoring, the seed's worked example: 4 + 8 + 10 - 2 = 20 against 8 + 4 + 4 = 16, reached by
    a whole scripted game (A: tipi, eagle and height villages with two suns and no sun village;
    B: tomahawk, variety and sun villages). The game ends when all 6 totems are finished."""
    state = start(*WORKED_DRAWS, villages=WORKED_VILLAGES)
    play(state, *WORKED_MOVES[:-1])
    assert view(state)["third_headdress_first"] == 1 and not state.is_terminal()
    play(state, WORKED_MOVES[-1])
    data = view(state)
    assert data["terminal"] and data["current_player"] is None
    assert [v["owner"] for v in data["villages"]] == [0, 1, 1, 1, 0, 0]
    assert totems(state) == [
        ["tipi", "tipi", "eagle", "sun", "sun"],
        ["tomahawk", "sun"],
        ["sun", "sun"],
        ["tomahawk", "sun"],
        ["skin"],
        ["skin"],
    ]
    assert data["scores"] == [4 + 8 + 10 - 2, 8 + 4 + 4] and data["winner"] == 0
    assert data["supplies"] == [["chief", "skin", "tipi"], ["chief", "tomahawk", "tipi"]]
    assert data["bag"] == ["skin", "tipi"], "pieces left in the bag are unused"


# --- information: basic and advanced ------------------------------------------------------


def test_basic_game_shows_all_six_villages_face_up():
    """Decision: in the basic game all six villages are face up from the start; supplies are public."""
    state = start("tipi")
    assert all(v["face_up"] for v in view(state)["villages"])
    obs = state.observation(1)
    for slot, kind in enumerate(LINE):
        block = obs[slot * ob.SLOT_BLOCK : slot * ob.SLOT_BLOCK + 8]
        assert block.tolist() == [1.0 if k == VILLAGES.index(kind) else 0.0 for k in range(8)]
    assert obs[ob.CANDIDATES : ob.CANDIDATES + 8].tolist() == [0, 0, 0, 0, 0, 0, 1, 1]  # variety, height boxed
    assert obs[ob.SUPPLIES + 6 + PIECE_OF_NAME["tipi"]] == pytest.approx(1 / 5), "opponent's supply is visible"


def test_advanced_tilted_villages_lie_face_down_and_are_revealed_one_at_a_time():
    """Advanced rule: the 3 tilted villages lie face down and are revealed one at a time when they
    become available; which villages are face down is hidden, the 8 - visible kinds are candidates."""
    state = start("tipi", "sun", villages=LINE, advanced=True)
    assert [v["face_up"] for v in view(state)["villages"]] == [True] * 3 + [False] * 3
    for player in (0, 1):
        obs = state.observation(player)
        for slot in (3, 4, 5):
            assert not obs[slot * ob.SLOT_BLOCK : slot * ob.SLOT_BLOCK + 9].any(), "kind and face-up flag are 0"
        assert obs[ob.CANDIDATES : ob.CANDIDATES + 8].tolist() == [0, 0, 0, 1, 1, 1, 1, 1]
    assert state.describe_action(build("tipi", 4)) == "build a tipi on village 4 (face down)"
    play(state, build("tipi", 1), finish(1))
    assert [v["face_up"] for v in view(state)["villages"]] == [True] * 4 + [False] * 2
    obs = state.observation(0)
    assert obs[3 * ob.SLOT_BLOCK + VILLAGES.index("skin")] == 1.0
    assert obs[ob.CANDIDATES : ob.CANDIDATES + 8].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert state.describe_action(finish(1)) == "finish the totem on village 1 (chief)"


def test_advanced_determinize_resamples_face_down_and_boxed_villages_among_the_candidates():
    """Advanced rule + search: determinize re-samples what nobody sees (bag order, the identity of
    face-down villages and of the two boxed ones) and keeps everything visible."""
    state = play(start("tipi", "sun", villages=LINE, advanced=True), build("tipi", 0))
    seen = set()
    for seed in range(40):
        other = state.determinize(0, np.random.default_rng(seed))
        data = view(other)
        assert [v["kind"] for v in data["villages"][:3]] == LINE[:3]
        hidden = [v["kind"] for v in data["villages"][3:]] + data["removed_villages"]
        assert sorted(hidden) == sorted(["skin", "tipi", "sun", "variety", "height"])
        assert Counter(data["bag"]) == Counter(view(state)["bag"])
        assert np.array_equal(other.observation(0), state.observation(0))
        assert np.array_equal(other.observation(1), state.observation(1))
        seen.add(tuple(hidden))
    assert len(seen) > 10, "the hidden kinds really are re-sampled"
    basic = play(start("tipi", "sun"), build("tipi", 0)).determinize(1, np.random.default_rng(0))
    assert [v["kind"] for v in view(basic)["villages"]] == LINE, "basic game: only the bag order is hidden"


def test_once_the_game_is_over_no_action_is_legal():
    """End: the game ends when all 6 totems are finished; nobody acts afterwards."""
    state = start("sun", "sun", "sun", "sun", "sun", "sun", "tipi", "tipi", "tipi", "tipi", "tipi")
    play(
        state,
        build("sun", 0),
        build("sun", 1),
        build("sun", 2),
        finish(0),
        finish(1),
        build("sun", 3),
        finish(2),
        finish(3),
        build("sun", 4),
        build("tipi", 5),
        finish(4),
        finish(5),
    )
    assert state.is_terminal() and state.current_player is None and state.legal_actions() == []
    assert state.legal_mask().sum() == 0
    before = view(state)
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply(build("tipi", 0))
    assert view(state) == before and before["winner"] is not None


# --- the action map and bad input to the engine -------------------------------------------------


def test_action_map_builds_then_finishes_each_action_decoded_once():
    """Action map (env card): k*6 + v builds a piece of kind k on slot v; 36 + v finishes slot v."""
    decoded = [decode(a) for a in range(NUM_ACTIONS)]
    assert decoded == [(k, v) for k in range(6) for v in range(6)] + [(None, v) for v in range(6)]
    assert [build_action(k, v) for k, v in decoded[:36]] == list(range(36))
    assert [finish_action(v) for _, v in decoded[36:]] == list(range(36, 42))


def test_actions_are_type_checked_not_compared():
    """An action is an int (a numpy integer too) in 0..41: True and 1.0 are refused even though they
    compare equal to the legal action 1 (an eagle on village 1), and nothing changes."""
    state = start("eagle")
    assert build("eagle", 1) == 1 and 1 in state.legal_actions()
    before = view(state)
    for bad in (True, 1.0, "1", None, [1]):
        with pytest.raises(IllegalActionError, match="action must be an int in 0..41"):
            state.apply(bad)
        assert view(state) == before
    state.apply(np.int64(1))  # a numpy integer naming a legal action is that action
    assert totems(state)[1] == ["eagle"] and type(state.legal_actions()[0]) is int


def test_a_refused_option_draws_nothing_from_the_generator():
    """Setup: every option is checked before anything is drawn, so a refused deal leaves the
    generator as it was (the next deal is the seed's)."""
    game = WakandaGame()
    rng = np.random.default_rng(7)
    for options in (
        {"bag": bag()[:-1]},
        {"villages": LINE[:5]},
        {"bag": bag(), "villages": ["bridge"] * 6},
        {"villages": LINE, "bag": "sun"},
        "bag",
    ):
        with pytest.raises(ValueError, match="options"):
            game.new_state(rng, options)
    assert view(game.new_state(rng)) == view(game.new_state(np.random.default_rng(7)))


def test_legal_actions_are_a_fresh_list_each_time():
    """Changing the list handed out changes neither the engine's legal actions nor its mask."""
    state = start("sun")
    handed = state.legal_actions()
    handed.clear()
    assert state.legal_actions() == [build("sun", v) for v in (0, 1, 2)]
    assert state.legal_mask().sum() == 3
