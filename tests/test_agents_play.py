"""The terminal game (``python -m agents.play``), driven by scripted input: full games, bad input included."""

from __future__ import annotations

import itertools

import pytest

from agents.play import main


def scripted(*first: str, then: str = "1"):
    """Answers: ``first`` in order, then ``then`` forever; records the prompts."""
    answers = itertools.chain(first, itertools.repeat(then))
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    return read, prompts


def run(argv, read):
    out: list[str] = []
    code = main(argv, read=read, write=out.append)
    return code, "\n".join(out)


def test_a_full_wapi_game_with_bad_input():
    """Bad input is re-asked with a clear message; the board is drawn after every move; the end is shown."""
    read, prompts = scripted("hello", "0", "99", "", "2")
    code, text = run(["wapi", "--opponents", "random", "heuristic", "--seed", "3", "--scoring", "shared"], read)
    assert code == 0
    assert "'hello' is not one of the moves: type a number from 1 to" in text
    assert "'0' is not one of the moves" in text and "'99' is not one of the moves" in text
    assert "'' is not one of the moves" in text
    assert "Your move, A (player_0):" in text and "1. " in text
    assert "B (player_1) [random]: " in text and "C (player_2) [heuristic]: " in text
    assert text.count("Wapi - 3 players, shared scoring") >= 40, "the board after every move"
    assert "Final scores: A (player_0) " in text and "Winner" in text
    assert len(prompts) >= 10


def test_a_full_wakanda_game_as_the_second_player():
    read, _ = scripted("x")
    code, text = run(["wakanda", "--opponents", "heuristic", "--seat", "1", "--seed", "2", "--advanced"], read)
    assert code == 0 and "Your move, B (player_1):" in text and "A (player_0) [heuristic]: " in text
    assert "'x' is not one of the moves" in text and "Final scores:" in text


def test_a_full_samurai_game():
    read, _ = scripted("7.5")
    code, text = run(["samurai", "--opponents", "random", "--seed", "1"], read)
    assert code == 0 and "'7.5' is not one of the moves" in text and "Final scores:" in text and "Winner" in text
    assert "to act: B (player_1); hand of A (player_0): " in text, "while an agent acts, the person sees their own hand"
    assert "hand of B (player_1)" not in text, "the opponent's hand is never shown"


@pytest.mark.parametrize("answer", ["²", "٣", "1" * 5000, "-1", "+1", "1e3", " 1 2", "0x1"])
def test_anything_but_a_plain_move_number_is_refused_with_a_message(answer):
    """Digits that str.isdigit accepts but int() refuses (a superscript two, an Arabic-Indic three, 5,000
    digits) and other spellings of numbers are asked again, the answer quoted cut short."""
    read, _ = scripted(answer, then="q")
    code, text = run(["wapi", "--opponents", "random", "random", "--seed", "0"], read)
    assert code == 0 and "You gave up" in text, "the game went on to the next answer (q)"
    refusal = next(line for line in text.splitlines() if "is not one of the moves" in line)
    assert refusal.startswith(repr(answer.strip())[:20]) and len(refusal) < 200


def test_every_option_of_every_game_is_settable(monkeypatch):
    """Each game's options come from its description: Samurai's hand choice and figure draft, Wapi's
    coins, Wakanda's advanced rules (a lone flag is True), each reaching the game that is played."""
    import agents.play

    made = []
    original = agents.play.make_game

    def make_game(name, **config):
        made.append(config)
        return original(name, **config)

    monkeypatch.setattr(agents.play, "make_game", make_game)
    read, _ = scripted()
    argv = ["samurai", "--opponents", "random", "--seed", "4", "--choose-hand", "--figure-setup", "draft"]
    code, text = run(argv, read)
    assert code == 0 and "Final scores:" in text
    assert made[-1] == {"choose_hand": True, "figure_setup": "draft", "num_players": 2}
    coins = '{"0": 6, "1": 6, "2": 6, "3": 6, "5": 6}'
    assert run(["wapi", "--opponents", "random", "--seed", "1", "--coins", coins], scripted()[0])[0] == 0
    assert made[-1] == {"coins": {0: 6, 1: 6, 2: 6, 3: 6, 5: 6}, "num_players": 2}
    assert run(["wakanda", "--advanced", "false", "--seed", "1"], scripted()[0])[0] == 0
    assert made[-1] == {"advanced": False}


def test_giving_up_and_end_of_input():
    """q is the player's choice (exit status 0, as a finished game); input that ends first is status 1."""
    read, _ = scripted("q")
    code, text = run(["wapi", "--opponents", "random", "random"], read)
    assert code == 0 and "You gave up" in text

    def closed(prompt: str) -> str:
        raise EOFError

    code, text = run(["wapi", "--opponents", "random", "random"], closed)
    assert code == 1 and "The input ended" in text


def test_epsilon_greedy_opponents_play_and_search_with_the_think_time(monkeypatch):
    """NAME~EPS seats NAME's agent made ε-greedy; an ε-greedy searcher still gets --think-time."""
    import agents.play

    built = []
    real = agents.play.make_agent
    monkeypatch.setattr(
        agents.play, "make_agent", lambda name, game, **o: built.append((name, o)) or real(name, game, **o)
    )
    argv = ["wakanda", "--opponents", "ismcts~0.5", "--think-time", "0.01", "--seed", "2"]
    code, text = run(argv, scripted()[0])
    assert code == 0 and "B (player_1) [ismcts~0.5]: " in text and "Final scores:" in text
    assert built == [("ismcts~0.5", {"seed": 201, "time_limit": 0.01})]


def test_the_opponents_are_level_3_unless_chosen(monkeypatch):
    """Levels are the default choice: without --level or --opponents every other seat is level 3."""
    import agents.play

    built = []
    real = agents.play.make_agent
    monkeypatch.setattr(
        agents.play, "make_agent", lambda name, game, **o: built.append((name, o)) or real(name, game, **o)
    )
    code, text = run(["wapi", "--num-players", "3", "--seed", "4"], scripted()[0])
    assert code == 0 and "B (player_1) [level 3]: " in text and "C (player_2) [level 3]: " in text
    assert built == [("level:3", {"seed": 401}), ("level:3", {"seed": 402})]


def test_one_level_for_every_seat_or_one_per_seat(monkeypatch):
    """--level N seats level N everywhere (the table as large as the game's default); --level N M ... one
    per other seat, which also sets the player count; the agents are built by make_agent("level:N")."""
    import agents.play

    built = []
    real = agents.play.make_agent
    monkeypatch.setattr(agents.play, "make_agent", lambda name, game, **o: built.append(name) or real(name, game, **o))
    code, text = run(["wapi", "--level", "1", "--seed", "2"], scripted()[0])
    assert code == 0 and "Final scores:" in text and built == ["level:1"] * 3, "Wapi's default: four players"
    built.clear()
    code, text = run(["wapi", "--level", "2", "1", "--seed", "3", "--seat", "2"], scripted()[0])
    assert code == 0 and built == ["level:2", "level:1"]
    assert "A (player_0) [level 2]: " in text and "B (player_1) [level 1]: " in text and "Your move, C" in text


@pytest.mark.parametrize(
    "argv,message",
    [
        (
            ["wapi", "--opponents", "random", "chess"],
            "unknown agent 'chess'; available: random, heuristic, ismcts, ppo:PATH",
        ),
        (["wapi", "--num-players", "4", "--opponents", "random"], "needs 3 opponents, got 1"),
        (["wapi", "--opponents", "random", "random", "--seat", "5"], "--seat must be in 0..2"),
        (["wakanda", "--scoring", "full"], "--scoring is not an option of wakanda"),
        (["wapi", "--num-players", "9"], "--num-players must be one of [2, 3, 4, 5] for wapi, got '9'"),
        (["samurai", "--figure-setup", "dice"], "--figure-setup must be one of ['random', 'draft'] for samurai"),
        (["samurai", "--choose-hand", "maybe"], "--choose-hand must be true or false, got 'maybe'"),
        (["wapi", "--coins", "{6}"], "--coins must be JSON, got '{6}'"),
        (["wapi", "--coins", '{"0": 1}'], "coins"),
        (["wakanda", "--num-players", "2"], "--num-players is not an option of wakanda; wakanda takes ['--advanced']"),
        (
            ["wakanda", "--opponents", "heuristic", "--think-time", "2"],
            "--think-time is for best and ismcts opponents; none of ['heuristic'] searches",
        ),
        (["wakanda", "--think-time", "2"], "--think-time is for --opponents (the advanced choice)"),
        (["wakanda", "--level", "5", "--think-time", "2"], "a level's thinking time is fixed"),
        (["wakanda", "--level", "6"], "--level: level must be an int, one of [1, 2, 3, 4, 5]; got 6"),
        (["wakanda", "--level", "0"], "--level: level must be an int, one of [1, 2, 3, 4, 5]; got 0"),
        (["wakanda", "--level", "2.0"], "--level: invalid int value: '2.0'"),
        (["wakanda", "--level", "2", "--opponents", "random"], "not allowed with argument --level"),
        (["wapi", "--num-players", "4", "--level", "1", "2"], "needs 3 opponents, got 2"),
        (["wakanda", "--opponents", "ismcts", "--think-time", "0"], "time_limit must be a positive"),
        (["wakanda", "--opponents", "heuristic~2"], "NAME~EPS with NAME an agent and EPS a number in [0, 1]"),
        (["wakanda", "--opponents", "heuristic~x", "--think-time", "1"], "--opponents: an ε-greedy agent"),
    ],
)
def test_bad_command_lines_are_refused_with_a_clear_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv, read=lambda prompt: "1", write=lambda line: None)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
