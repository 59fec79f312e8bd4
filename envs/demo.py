"""A seeded game between random agents, printed as text (the main job until train.py lands).

    python -m envs.demo [--game wapi] [--seed 0]
"""

from __future__ import annotations

import argparse
import importlib
import random

import numpy as np

import envs


def play(game: str, seed: int) -> None:
    module = importlib.import_module(f"envs.{game}_v0")
    env = module.env(render_mode="ansi")
    env.reset(seed=seed)
    choose = random.Random(seed).choice
    final = {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            final[agent] = (reward, info)
            env.step(None)
            continue
        action = choose(np.flatnonzero(obs["action_mask"]).tolist())
        print(f"{agent}: {env.unwrapped.describe_action(action)}")
        env.step(action)
    print(env.render())
    for agent, (reward, info) in sorted(final.items()):
        print(f"{agent}: reward {reward:+g}, info {info}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(envs.ENV_IDS), default="wapi")  # needs envs/<game>_v0.py
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    play(args.game, args.seed)


if __name__ == "__main__":
    main()
