"""Wapi (Knizia, Tactic 2003): silver mines and totem poles, 2-5 players."""

from envs.wapi.rules import WapiGame, WapiState

__all__ = ["WapiGame", "WapiState"]
