"""Reading a model file, and finding the shipped ones: loading never executes code.

A model file is a zip that Stable-Baselines3 can also read (``MaskablePPO.load``
works on it, for files you trust), holding our own entries next to SB3's: the
card ``drawluck.json`` (:mod:`agents.models.card`), ``policy.pth`` (the policy's
``state_dict``, tensors only) and ``policy.optimizer.pth`` (the Adam state, for
resuming). Entries are read with size limits, the card as JSON and the tensors
with ``torch.load(weights_only=True)``, which refuses any pickled object other
than tensors and plain containers; SB3's own ``data`` entry (a cloudpickle) is
never read.

The shipped models are the zips beside this module (``agents/models/*.zip``,
listed in its README): the one home of both the files and the code that
finds them.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from agents.models.card import CARD_NAME, POLICY_NAME, check_card_fields, game_card
from envs.core.engine import Game, shown

#: Limits that keep a hostile file from exhausting memory before it is refused.
MAX_CARD_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 256 << 20
#: Where the shipped models live (``load_network("trained", game)``).
SHIPPED_DIR = Path(__file__).resolve().parent


def find_model(path: str) -> Path:
    """The model file at ``path`` (its ``.zip`` suffix may be left out); ValueError if there is none."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"a model path must be a non-empty str, got {shown(path)}")
    candidates = [Path(path)] if path.endswith(".zip") else [Path(path), Path(path + ".zip")]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ValueError(
        f"model file not found: {path!r} (looked for {', '.join(map(str, candidates))})"
        if len(path) <= 500
        else f"model file not found: {shown(path)}"
    )


def _read_entry(archive: zipfile.ZipFile, name: str, limit: int, where: str) -> bytes:
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ValueError(f"{where} has no {name}") from None
    if info.file_size > limit:
        raise ValueError(f"{where}: {name} is {info.file_size} bytes, more than the {limit} allowed")
    data = archive.read(info)
    if len(data) > limit:
        raise ValueError(f"{where}: {name} is larger than the {limit} bytes allowed")
    return data


def read_card(path: str) -> dict[str, Any]:
    """The card of the model file at ``path``, checked for shape (JSON only: nothing is executed)."""
    model_file = find_model(path)
    where = f"model file {model_file}"
    try:
        with zipfile.ZipFile(model_file) as archive:
            if CARD_NAME not in archive.namelist():
                raise ValueError(
                    f"{where} has no {CARD_NAME} card: it was not saved by drawluck, and files "
                    f"without a card are never loaded (they may run code when unpickled)"
                )
            text = _read_entry(archive, CARD_NAME, MAX_CARD_BYTES, where)
    except (zipfile.BadZipFile, OSError) as error:
        raise ValueError(f"{where} is not a model zip: {error}") from None
    try:
        card = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{where}: its card is not valid JSON ({error})") from None
    check_card_fields(card, where)
    return card


def read_tensors(path: str, name: str = POLICY_NAME) -> dict[str, Any]:
    """Entry ``name`` of a model zip, read with ``torch.load(weights_only=True)``: tensors and plain data
    only; any other pickled object is refused (ValueError), never constructed."""
    import torch  # here, not at the top: reading a card needs no torch

    model_file = find_model(path)
    where = f"model file {model_file}"
    try:
        with zipfile.ZipFile(model_file) as archive:
            data = _read_entry(archive, name, MAX_WEIGHTS_BYTES, where)
    except (zipfile.BadZipFile, OSError) as error:
        raise ValueError(f"{where} is not a model zip: {error}") from None
    try:
        value = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # UnpicklingError for a forbidden object, RuntimeError for a corrupt archive
        raise ValueError(f"{where}: {name} is not a plain tensor file ({shown(str(error), 300)})") from None
    if not isinstance(value, dict):
        raise ValueError(f"{where}: {name} must hold a dict, got {type(value).__name__}")
    return value


def shipped_models() -> dict[str, list[dict[str, Any]]]:
    """The models shipped in the package, by game: ``{game: [config, ...]}`` read from their cards."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(SHIPPED_DIR.glob("*.zip")):
        card = read_card(str(path))
        found.setdefault(card["game"], []).append(card["config"])
    return found


def shipped_model_path(game: Game) -> str:
    """The shipped model for ``game``'s configuration; ValueError naming the configurations that have one."""
    want = game_card(game)
    for path in sorted(SHIPPED_DIR.glob("*.zip")):
        card = read_card(str(path))
        if card["game"] == want["game"] and card["config"] == want["config"]:
            return str(path)
    have = [f"{name} {config}" for name, configs in shipped_models().items() for config in configs]
    raise ValueError(
        f"no trained model is shipped for {want['game']} {want['config']}; "
        f"trained models exist for: {'; '.join(have) or 'none'}"
    )
