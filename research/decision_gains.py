"""How much each way of choosing a move gains per decision over the heuristic, judged by paired search samples.

Why: at a four-player Wapi table a win rate needs thousands of games for a
point of precision, so a change to a model or a search is hard to judge by
play. A decision is far cheaper to judge. At every decision of heuristic
games (the heuristic in every seat), the *judge* measures each legal move's
mean reward over ``--judge-samples`` paired samples of the flat search
(:meth:`agents.ismcts.ISMCTSAgent.action_values`: every move played out on
the same determinizations, the heuristic in every seat after it; the reward
is the search's, win blended with the rank by score). Each *chooser* then
picks a move without seeing the judge's samples, and its gain is the judge's
value of its pick minus that of the heuristic's own move. Because the
choosers never see those samples, the judge's noise makes the mean gain
noisier but not biased.

Choosers:

- ``search:N``: the flat paired search's choice from ``N`` fresh samples of
  its own (the move with the best mean), i.e. plain ISMCTS's Wapi search at a
  budget of ``N`` samples a move (``--search-samples``);
- each ``--models`` file: its most probable legal move (the ``ppo:PATH``
  agent's choice).

The gain is a one-step measure: Q of the heuristic's continuation, on the
heuristic's positions. A model fit to this measure gains less on the
positions its own play leads to, and those are the ones that count.
``--positions MODEL`` judges those instead: the model plays one seat
(rotating with the deal) against heuristics, and only its decisions are
judged (``docs/experiments/006-wapi-model-training.md``, its appendix, where
the measure on a model's own positions ranked two models as they play).

    python -m research.decision_gains --game wapi --games 60 --judge-samples 256 \\
        --search-samples 32 256 --models agents/models/wapi4.zip --out research/results/decision_gains_wapi.md
    python -m research.decision_gains --game wapi --games 200 --judge-samples 32 --search-samples \\
        --models agents/models/wapi4.zip --positions agents/models/wapi4.zip
"""

from __future__ import annotations

import argparse
import json
import shlex
import time

import numpy as np

#: The seeds of the deals played (no training or evaluation run uses them).
DEAL_SEED = 4_000_000


def judge_games(task: tuple) -> dict[str, np.ndarray]:
    """Worker: games on the given deals (the heuristic in every seat, or ``positions`` (a model) in the
    seat ``deal % players``); per judged decision with a choice, the judge's values (0 off the legal
    moves), the heuristic's move and every chooser's move."""
    import torch

    from agents import make_agent
    from agents.ismcts import ISMCTSAgent
    from agents.ppo import PPOAgent
    from agents.protocol import PlayerView
    from envs.games import make_game
    from training.imitation import measured_values

    torch.set_num_threads(1)
    game_name, config, seeds, judge_samples, search_samples, models, positions = task
    game = make_game(game_name, **config)
    model_agents = [PPOAgent(path, game) for path in models]  # each plays its most probable legal move
    player = None if positions is None else PPOAgent(positions, game)
    rows: dict[str, list] = {"values": [], "heuristic": [], "picks": [], "game": []}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        heuristics = [make_agent("heuristic", game, seed=seed * 10 + p) for p in range(game.num_players)]
        # the judge (k = 0) and the search choosers draw their own determinizations (the heuristic of seat k
        # shares seed k's stream, but a heuristic reads only what its player sees: its move is the same whatever
        # the draw, so nothing the judge samples can steer it)
        searches = [
            ISMCTSAgent(game, seed=seed * 10 + k, paired_root=True, tree_depth=1)
            for k in range(1 + len(search_samples))
        ]
        seat = None if player is None else seed % game.num_players
        state = game.new_state(rng)
        while state.current_player is not None:
            view = PlayerView(state, rng)
            action = int(heuristics[state.current_player].act(view))
            if len(view.legal_actions) > 1 and (seat is None or seat == state.current_player):
                rows["values"].append(measured_values(searches[0], view, judge_samples))
                rows["heuristic"].append(action)
                rows["game"].append(seed)
                rows["picks"].append(_picks(view, searches[1:], search_samples, model_agents))
            if seat == state.current_player:
                action = int(player.act(view))
            state.apply(action)
    return {
        "values": np.array(rows["values"], np.float32).reshape(-1, game.num_actions),
        "heuristic": np.array(rows["heuristic"], np.int64),
        "picks": np.array(rows["picks"], np.int64).reshape(-1, len(search_samples) + len(models)),
        "game": np.array(rows["game"], np.int64),
    }


def _picks(view, searches, search_samples: list[int], model_agents) -> list[int]:
    """Each chooser's move: the searches' best mean over their own samples, then the models' moves."""
    picks = []
    for search, samples in zip(searches, search_samples):
        measured = search.action_values(view, samples)
        picks.append(max(view.legal_actions, key=lambda move: measured[move]))
    return picks + [int(agent.act(view)) for agent in model_agents]


def gains(
    values: np.ndarray, heuristic: np.ndarray, picks: np.ndarray, games: np.ndarray
) -> list[tuple[float, float, float, float]]:
    """Per chooser (a column of ``picks``): the gain per decision over the heuristic's move, as the mean over
    games of each game's mean gain, with its t interval over games (a game's decisions share its deal, so the
    games are the independent units: :func:`benchmarks.core.rating.mean_interval`), and how often it picks the
    heuristic's move: ``(mean, low, high, same)``."""
    from benchmarks.core.rating import mean_interval

    rows = np.arange(len(values))
    out = []
    for column in picks.T:
        gain = values[rows, column] - values[rows, heuristic]
        per_game = [float(gain[games == game].mean()) for game in np.unique(games)]
        out.append((*mean_interval(per_game), float(np.mean(column == heuristic))))
    return out


def build_parser() -> argparse.ArgumentParser:
    from cli import HelpFormatter

    parser = argparse.ArgumentParser(
        prog="python -m research.decision_gains", description=__doc__.split("\n")[0], formatter_class=HelpFormatter
    )
    parser.add_argument("--game", default="wapi", help="the game")
    parser.add_argument(
        "--config",
        type=json.loads,
        default={},
        help="the game's options as JSON, e.g. {\"num_players\": 4} (default: {}, the game's defaults)",
    )
    parser.add_argument("--games", type=int, default=60, help="games whose decisions are judged")
    parser.add_argument("--seed", type=int, default=DEAL_SEED, help="the first deal's seed")
    parser.add_argument(
        "--judge-samples", type=int, default=256, help="paired samples of the flat search that value every legal move"
    )
    parser.add_argument(
        "--search-samples",
        type=int,
        nargs="*",
        default=[32, 256],
        help="choosers search:N, the flat search's choice from N samples of its own (none: no search rows)",
    )
    parser.add_argument(
        "--models", nargs="*", default=[], help="model files judged as choosers: their most probable legal move"
    )
    parser.add_argument(
        "--positions",
        default=None,
        help="a model playing one seat against heuristics: only its decisions are judged, and only the --models "
        "and --search-samples choosers are (default: none, the heuristic in every seat)",
    )
    parser.add_argument("--processes", type=int, default=2, help="worker processes")
    parser.add_argument("--out", default=None, help="also write the table here, as markdown (default: printed only)")
    return parser


def main(argv: list[str] | None = None) -> None:
    from agents.models.network import load_network
    from cli import parse_command
    from envs.games import make_game
    from parallel.pool import chunks, joined, parallel_map

    parser = build_parser()
    args, argv = parse_command(parser, argv)
    for name in ("games", "judge_samples", "processes"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if any(samples < 1 for samples in args.search_samples):
        parser.error(f"--search-samples must all be at least 1, got {args.search_samples}")
    game = make_game(args.game, **args.config)  # a bad name or option is refused here
    for path in [*args.models, *([] if args.positions is None else [args.positions])]:
        load_network(path, game)  # a model of another game or configuration is refused before any game
    started = time.time()
    seeds = list(range(args.seed, args.seed + args.games))
    config = game.config()
    tasks = [
        (args.game, config, chunk, args.judge_samples, args.search_samples, args.models, args.positions)
        for chunk in chunks(seeds, args.processes)
    ]
    judged = joined(parallel_map(judge_games, tasks, args.processes))
    names = [f"search:{n}" for n in args.search_samples] + [f"`{path}`" for path in args.models]
    results = gains(judged["values"], judged["heuristic"], judged["picks"], judged["game"])
    text = _report(names, results, len(judged["heuristic"]), config, args, argv, time.time() - started)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)


def _report(names, results, decisions: int, config: dict, args, argv: list[str], seconds: float) -> str:
    lines = [
        f"# Gain per decision over the heuristic's move: {args.game} {config}",
        "",
        f"Command: `python -m research.decision_gains {shlex.join(argv)}`",
        "",
        f"{args.games} {_whose(args.positions)} (deal seeds from {args.seed:,}), {decisions:,} decisions with a "
        f"choice, each legal move judged by {args.judge_samples} paired samples of the flat search (reward: win "
        f"blended with the rank by score, -1..1); {seconds:.0f} s on {args.processes} processes. Gain: the judge's "
        "value of the chooser's move minus that of the heuristic's, averaged over a game's decisions and then over "
        "the games; 95% interval: t over games (games − 1 degrees of freedom), since a game's decisions share its "
        "deal.",
        "",
        "| chooser | gain per decision | 95% interval | picks the heuristic's move |",
        "|---|---:|---|---:|",
    ]
    for name, (mean, low, high, same) in zip(names, results):
        interval = f"{low:+.4f} .. {high:+.4f}"
        lines.append(f"| {name} | **{mean:+.4f}** | {interval} | {same:.1%} |")
    return "\n".join(lines) + "\n"


def _whose(positions: str | None) -> str:
    if positions is None:
        return "heuristic games"
    return f"games of `{positions}` in one seat (deal % players) against heuristics, its decisions judged"


if __name__ == "__main__":
    main()
