"""The distillation's learning step: the network fitted to the teacher's visits and the games' results.

The policy head is trained by cross-entropy towards the search's visit
distribution (the logits of illegal moves removed first, as in play), the
value head by mean squared error towards a mix of the mover's final reward
and the search's own value of the position (``search_value_weight``): a
game's result is one noisy ±1 for all its positions, the search's value is
an average over hundreds of simulations (and carries whatever leaf
evaluation the search mixed in), so the mix learns faster from few games. One game
in ten is held out, whole (the positions of one game are alike), and the
held-out losses and the agreement of the network's favourite move with the
search's most visited one are reported.

Datasets are ``.npz`` files of plain arrays (:data:`.selfplay.RECORD_FIELDS`),
read with ``allow_pickle=False``: a dataset file never runs code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from training.distill.selfplay import RECORD_FIELDS


def save_records(records: dict[str, np.ndarray], path: Path) -> None:
    """One shard, written atomically (an interrupted run finds whole shards or none), with the CPU seconds
    its games took where it has them."""
    extra = {"cpu_seconds": records["cpu_seconds"]} if "cpu_seconds" in records else {}
    partial = path.with_name(path.name + ".partial.npz")
    np.savez_compressed(partial, **{name: records[name] for name in RECORD_FIELDS}, **extra)
    partial.replace(path)


def shard_cpu_seconds(path: Path) -> float:
    """The CPU seconds the shard's games took (0 for a shard that does not say)."""
    with np.load(path, allow_pickle=False) as data:
        return float(data["cpu_seconds"]) if "cpu_seconds" in data.files else 0.0


def load_records(paths: list[Path]) -> dict[str, np.ndarray]:
    """The records of several shards, joined (plain arrays only; a file holding anything else is refused)."""
    parts = []
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            missing = [name for name in RECORD_FIELDS if name not in data.files]
            if missing:
                raise ValueError(f"{path} is not a distillation dataset: it lacks {missing}")
            parts.append({name: data[name] for name in RECORD_FIELDS})
    return merge(parts)


def merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Several records as one."""
    return {name: np.concatenate([part[name] for part in parts]) for name in RECORD_FIELDS}


def _losses(
    network, data: dict[str, np.ndarray], rows: np.ndarray, search_value_weight: float
) -> tuple[torch.Tensor, torch.Tensor, float]:
    """Policy cross-entropy to the visits, value MSE to the value targets, and top-move agreement, over ``rows``."""
    obs = torch.from_numpy(data["obs"][rows].astype(np.float32))
    masks = torch.from_numpy(data["masks"][rows])
    targets = torch.from_numpy(data["policies"][rows].astype(np.float32))
    targets = targets / targets.sum(dim=1, keepdim=True)
    logits, values = network.logits_and_values(obs)
    log_probs = torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=1)
    policy_loss = -(targets * log_probs).sum(dim=1).mean()
    value_targets = (
        (1 - search_value_weight) * data["values"][rows] + search_value_weight * data["search_values"][rows]
    ).astype(np.float32)
    value_loss = torch.nn.functional.mse_loss(values, torch.from_numpy(value_targets))
    agreement = float((log_probs.argmax(dim=1) == targets.argmax(dim=1)).float().mean())
    return policy_loss, value_loss, agreement


def fit(
    network,
    data: dict[str, np.ndarray],
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_weight: float,
    seed: int,
    search_value_weight: float = 0.0,
) -> dict[str, Any]:
    """Train ``network`` (a :class:`~agents.models.network.PolicyValueNet`; its module in place) on ``data``;
    returns the held-out and training losses (see the module docstring)."""
    rng = np.random.default_rng(seed)
    game_ids = np.unique(data["games"])
    held = rng.choice(game_ids, size=max(1, len(game_ids) // 10), replace=False) if len(game_ids) > 1 else []
    is_held = np.isin(data["games"], held)
    train_rows, test_rows = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    module = network.module
    optimizer = torch.optim.Adam(module.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)

    def evaluate(rows):
        return _evaluate(network, data, rows, search_value_weight)

    before = evaluate(test_rows)
    module.train()
    for _ in range(epochs):
        order = train_rows[torch.randperm(len(train_rows), generator=generator).numpy()]
        for start in range(0, len(order), batch_size):
            policy_loss, value_loss, _ = _losses(network, data, order[start : start + batch_size], search_value_weight)
            optimizer.zero_grad()
            (policy_loss + value_weight * value_loss).backward()
            optimizer.step()
    module.eval()
    after = evaluate(test_rows)
    train = evaluate(train_rows[:20_000])
    return {
        "train_positions": len(train_rows),
        "held_out_positions": len(test_rows),
        **{f"held_out_{k}_before": v for k, v in before.items()},
        **{f"held_out_{k}": v for k, v in after.items()},
        **{f"train_{k}": v for k, v in train.items()},
    }


def _evaluate(network, data, rows, search_value_weight: float) -> dict[str, float]:
    if len(rows) == 0:
        return {"policy_loss": float("nan"), "value_loss": float("nan"), "agreement": float("nan")}
    with torch.no_grad():
        policy_loss, value_loss, agreement = _losses(network, data, rows, search_value_weight)
    return {"policy_loss": float(policy_loss), "value_loss": float(value_loss), "agreement": agreement}
