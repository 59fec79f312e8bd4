"""What ``train.py`` trains with: each game's settings as data, the PPO settings object, and :class:`Args`.

Three layers, each written once:

- :data:`TRAINING_DEFAULTS` and :data:`GAME_TRAINING`: the settings every game
  trains with and each game's differences (a constant chosen by measurement
  names the results file or experiment that chose it);
- :class:`PPOHyperparameters`: PPO's numbers, named as MaskablePPO's keywords,
  each with its help and RLlib's name for it; :class:`PPOSettings` adds the
  network: the learner's settings as a model card records them
  (``training.hyperparameters``), ``train.py``'s job builds the learner from them, ``--resume``
  keeps them and the RLlib config reads them;
- :class:`Args`: every ``train.py`` option (the PPO numbers inherited), its help
  beside it; :mod:`training.train_command` turns it into a parser.

Nothing here imports torch: ``train.py --help`` and bad input stay fast.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

import envs
from agents.models.card import STRUCTURED_NETWORKS

DEFAULT_GAME = "wakanda"

#: The values of ``--network``: an MLP for any game, or a structured network.
NETWORK_CHOICES = ("mlp", *STRUCTURED_NETWORKS)

# --- each game's settings, as data ---------------------------------------------------------
#: What every game trains with unless :data:`GAME_TRAINING` says otherwise (chosen in
#: docs/experiments/012-shipped-models-before-the-protocol.md and docs/experiments/007-009).
TRAINING_DEFAULTS: dict[str, Any] = dict(
    opponents=["random", "heuristic", "self"],  # docs/experiments/009-league-pfsp.md
    warm_start="heuristic",  # docs/experiments/008-warm-start.md
    warm_start_samples=8,
    init_model="",  # none: a new network
    network="mlp",
    torch_threads=1,
    shared_layers=[],
    # The run's scale: the Wapi and Samurai runs' (docs/experiments/005 and 006); Wakanda's is larger.
    timesteps=1_000_000,
    warm_start_games=300,
    n_envs=64,
    eval_freq=50_000,
    eval_freq_games=100,
    snapshot_freq=50_000,
    # PPO's rollouts and updates
    n_steps=64,
    n_epochs=4,
    batch_size=1024,
    learning_rate=1e-3,
    # PPO's returns and loss
    gamma=1.0,
    gae_lambda=0.95,
    ent_coef=0.01,
    clip_range=0.2,
)

#: Each game's differences from :data:`TRAINING_DEFAULTS`: the runs of the shipped models
#: (docs/experiments/012-shipped-models-before-the-protocol.md, "The shipped models"; docs/experiments/005 and 006).
GAME_TRAINING: dict[str, dict[str, Any]] = {
    "samurai": dict(
        # The board as a graph: chosen by research/results/imitation_networks.md (held-out imitation accuracy,
        # docs/experiments/005-samurai-model-training.md); --network mlp uses net_arch and shared_layers.
        network="samurai_graph",
        # One thread for the graph network's updates too: a second pays only where a core is free, and costs
        # several times over where it is not (docs/experiments/007-training-workers-and-throughput.md, "The
        # Samurai graph network's training speed"); --torch-threads 2 on a machine with a free core.
        torch_threads=1,
        net_arch=[128],
        shared_layers=[256],
    ),
    "wakanda": dict(
        # `make run`: PPO from the shipped model's weights (agents/models/wakanda.zip; no warm start, it is
        # already past the heuristic) against the heuristic alone, at a fine-tuning learning rate, until the
        # clock stops it; the periodic evaluation plays 1,000 games a side (a fraction of a second), so that it
        # chooses model.zip by skill rather than luck (docs/experiments/016-default-run-from-the-shipped-model.md).
        # The default before it, a new network: --init-model none --warm-start heuristic --opponents random
        # heuristic self --learning-rate 5e-4 --timesteps 3000000 --eval-freq 100000 --eval-freq-games 100.
        init_model="trained",
        warm_start="none",
        opponents=["heuristic"],
        learning_rate=2e-4,
        timesteps=5_000_000,
        eval_freq=200_000,
        eval_freq_games=1000,
        warm_start_games=600,
        n_envs=128,
        snapshot_freq=100_000,
        net_arch=[256, 256],
        batch_size=2048,
    ),
    "wapi": dict(net_arch=[128, 128]),  # docs/experiments/006-wapi-model-training.md
}


def game_training(game: str) -> dict[str, Any]:
    """Every per-game training setting of ``game`` (a fresh copy: callers may change it)."""
    if game not in GAME_TRAINING:
        raise ValueError(f"no training settings for game {game!r}; games: {list(GAME_TRAINING)}")
    return copy.deepcopy({**TRAINING_DEFAULTS, **GAME_TRAINING[game]})


def per_game(name: str, text: str, **metadata: Any):
    """A setting whose default is the game's (``text``: its help): the default game's in the dataclass,
    ``--game X``'s on the command line (:func:`training.train_command.build_parser`)."""
    return field(
        default_factory=lambda: game_training(DEFAULT_GAME)[name], metadata={"help": text, "per_game": True, **metadata}
    )


# --- the PPO settings ---------------------------------------------------------------------
@dataclass(frozen=True)
class PPOHyperparameters:
    """PPO's numbers. The names are MaskablePPO's keywords; ``rllib`` is RLlib's ``.training()`` keyword
    (``n_steps`` becomes the batch of a whole rollout of every game there)."""

    n_steps: int = per_game("n_steps", "steps per game per rollout")
    batch_size: int = per_game("batch_size", "minibatch size", rllib="minibatch_size")
    n_epochs: int = per_game("n_epochs", "passes over each rollout", rllib="num_epochs")
    learning_rate: float = per_game("learning_rate", "Adam learning rate", rllib="lr")
    gamma: float = per_game("gamma", "discount (1.0: the only reward is the last)", rllib="gamma")
    gae_lambda: float = per_game("gae_lambda", "GAE lambda", rllib="lambda_")
    ent_coef: float = per_game("ent_coef", "entropy bonus", rllib="entropy_coeff")
    clip_range: float = per_game("clip_range", "PPO clip range", rllib="clip_param")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return PPO_NUMBERS

    def hyperparameters(self) -> dict[str, Any]:
        """The numbers by name: MaskablePPO's keyword arguments."""
        return {name: getattr(self, name) for name in self.names()}

    def rllib_options(self, n_envs: int) -> dict[str, Any]:
        """RLlib's ``PPOConfig.training()`` keywords for these numbers, a rollout being ``n_steps * n_envs``."""
        fields = dataclasses.fields(PPOHyperparameters)
        options = {f.metadata["rllib"]: getattr(self, f.name) for f in fields if "rllib" in f.metadata}
        return {"train_batch_size_per_learner": self.n_steps * n_envs, **options}


#: The names of PPO's numbers (MaskablePPO's keywords), as :class:`Args` and :class:`PPOSettings` hold them.
PPO_NUMBERS = tuple(f.name for f in dataclasses.fields(PPOHyperparameters))


@dataclass(frozen=True)
class PPOSettings(PPOHyperparameters):
    """The learner's settings: PPO's numbers and the network (the card's description, see
    ``agents.models.card.network_description``). A model card records them as ``training.hyperparameters``."""

    network: dict[str, Any] = field(kw_only=True)

    @classmethod
    def of(cls, numbers: PPOHyperparameters, network: dict[str, Any]) -> PPOSettings:
        """``numbers`` (train.py's :class:`Args`, say) with ``network``."""
        return cls(**numbers.hyperparameters(), network=network)

    @classmethod
    def from_card(cls, hyperparameters: Any, where: str) -> PPOSettings:
        """The settings a card's ``training.hyperparameters`` records; ValueError if some are missing."""
        names = ("network", *cls.names())
        if not isinstance(hyperparameters, dict) or any(name not in hyperparameters for name in names):
            raise ValueError(f"{where} records no learner settings (it was not saved by train.py)")
        return cls(**{name: hyperparameters[name] for name in names})

    def card(self) -> dict[str, Any]:
        """What a card records: the network first, then the numbers (plain data, JSON-ready)."""
        return {"network": copy.deepcopy(self.network), **self.hyperparameters()}


# --- train.py's settings --------------------------------------------------------------------
@dataclass(frozen=True)
class Args(PPOHyperparameters):
    """Every ``train.py`` setting (one option each, see :mod:`training.train_command`), PPO's numbers inherited."""

    # --- the game (its options, e.g. --num-players, are added from its description) ---
    game: str = field(default=DEFAULT_GAME, metadata={"help": "game to train on", "choices": list(envs.GAMES)})
    game_options: dict[str, Any] = field(default_factory=dict, metadata={"option": False})
    given: list[str] = field(default_factory=list, metadata={"option": False})  # the settings the command line names
    reward: str = field(
        default="win", metadata={"help": "reward mode: win (+1/-1/0) or score (own minus others' mean)"}
    )
    # --- the run --------------------------------------------------------------------
    timesteps: int = per_game(
        "timesteps",
        "learner steps to train, rounded up to whole rollouts (--n-steps x --n-envs; --backend rllib: whole "
        "training iterations); with --resume, steps to add to the file's",
    )
    opponents: list[str] = per_game(
        "opponents",
        "the league's baselines (random, heuristic, trained: the model shipped for the configuration, ismcts, "
        "ppo:PATH) and self (snapshots of the learner)",
    )
    league: str = field(
        default="pfsp",
        metadata={
            "help": "how opponents are drawn: pfsp (by how often the learner loses to them) or uniform",
            "choices": ["pfsp", "uniform"],
        },
    )
    pfsp_power: float = field(
        default=2.0,
        metadata={"help": "pfsp: an opponent's weight is (learner's loss rate against it) ** this, plus 0.05"},
    )
    warm_start: str = per_game(  # none when resuming, unless given
        "warm_start",
        "imitate this agent's moves before PPO: heuristic, ismcts, rollouts (the heuristic, then fit to "
        "each move's value measured by paired rollouts) or none",
    )
    warm_start_games: int = per_game(
        "warm_start_games", "games played by the imitated agent for the warm start (rollouts: as many more measured)"
    )
    warm_start_epochs: int = field(
        default=15, metadata={"help": "passes over the imitated moves (with --init-model: over the measured moves)"}
    )
    warm_start_samples: int = per_game(
        "warm_start_samples", "rollouts warm start: paired samples of the flat search measuring each decision's moves"
    )
    n_envs: int = per_game("n_envs", "games played at once (the learner's moves in all of them in one pass)")
    seed: int = field(default=1, metadata={"help": "seeds everything: deals, seats, opponents, network init"})
    out: str = field(
        default="",
        metadata={"help": "output directory (default: runs/<game>__maskppo__<seed>__<time>; rllib: __rllib_ppo__)"},
    )
    eval_opponents: list[str] = field(
        default_factory=["random", "heuristic"].copy,
        metadata={
            "help": "baselines for the periodic evaluation and the final table (random, heuristic, trained, "
            "ismcts, ppo:PATH)"
        },
    )
    eval_games: int = field(default=400, metadata={"help": "games per opponent in the final table (seats swapped)"})
    eval_seed: int = field(
        default=20_000,
        metadata={
            "help": "the final table's deals: game i deals from seed --eval-seed + i // players (the periodic "
            "evaluation's are 10000 on); another one measures a run on deals its settings were not chosen on"
        },
    )
    eval_freq: int = per_game("eval_freq", "learner steps between evaluations")
    eval_freq_games: int = per_game(
        "eval_freq_games", "games per opponent in each periodic evaluation (which chooses model.zip)"
    )
    snapshot_freq: int = per_game("snapshot_freq", "learner steps between self-play snapshots")
    max_snapshots: int = field(default=5, metadata={"help": "latest snapshots kept in the league"})
    resume: str = field(
        default="",
        metadata={
            "help": "continue training this model file: its network is kept, and so are its learner settings "
            "(--learning-rate, --ent-coef, ...) unless the command line gives them"
        },
    )
    init_model: str = per_game(  # none when resuming, unless given
        "init_model",
        "start a new run from this model file's weights (any train.py model; trained: the model shipped for the "
        "game's configuration; none: a new network), not its optimizer or step count; its network is kept (a "
        "--warm-start rollouts then only fits it to measured moves)",
    )
    torch_threads: int = per_game(
        "torch_threads",
        "torch CPU threads of PPO's updates (rollouts use one); 1 is fastest for the MLPs and on a busy machine, "
        "the Samurai graph network's updates gain from 2 where a second core is free",
    )
    max_minutes: float = field(
        default=8.0,
        metadata={
            "help": "stop training after this many minutes of wall time even before --timesteps, so that the default "
            "run keeps to about 10 minutes on a busy 2-core machine (0: no limit; a run stopped by it is not "
            "step-for-step reproducible)"
        },
    )
    progress_bar: bool = field(default=True, metadata={"help": "show a progress bar"})
    # --- the trainer ----------------------------------------------------------------
    backend: str = field(
        default="sb3",
        metadata={
            "help": "sb3: MaskablePPO with the batched self-play above; rllib: RLlib's PPO on Ray (docs/ray.md)",
            "choices": ["sb3", "rllib"],
        },
    )
    num_env_runners: int = field(default=0, metadata={"help": "rllib: Ray actors sampling games (0: in this process)"})
    ray_address: str = field(
        default="",
        metadata={
            "help": "rllib: the Ray cluster to join, auto or HOST:PORT (default: $RAY_ADDRESS, else a local Ray)"
        },
    )
    # --- the learner's network (PPO's numbers are inherited) ---------------------------
    network: str = per_game(
        "network",
        "mlp (layers from --net-arch and --shared-layers), samurai_graph (Samurai only: the board as a "
        "graph) or wapi_mines (Wapi only: one network for every mine)",
        choices=list(NETWORK_CHOICES),
    )
    net_arch: list[int] = per_game("net_arch", "hidden layers of the policy and of the value head, e.g. 128 128")
    shared_layers: list[int] = per_game(
        "shared_layers", "hidden layers shared by both heads, before them (none: write 0)"
    )


#: The options of the sb3 backend alone (--backend rllib samples with --num-env-runners, draws opponents by
#: its own PFSP, and builds its MLP from --net-arch alone).
SB3_ONLY = (
    "resume",
    "init_model",
    "warm_start",
    "warm_start_games",
    "warm_start_epochs",
    "warm_start_samples",
    "league",
    "pfsp_power",
    "shared_layers",
)
#: The options that choose the network, which a run started from a model file cannot change.
NETWORK_OPTIONS = ("network", "net_arch", "shared_layers")
#: The counts that must be positive.
POSITIVE = (
    "timesteps",
    "n_envs",
    "n_steps",
    "batch_size",
    "n_epochs",
    "eval_freq",
    "snapshot_freq",
    "eval_games",
    "eval_freq_games",
    "max_snapshots",
    "torch_threads",
    "warm_start_games",
    "warm_start_epochs",
    "warm_start_samples",
)
