"""drawluck environments. Importing this package registers them with PettingZoo:
``pettingzoo.make("aec", "drawluck/wapi-v0", num_players=3)``."""

from pettingzoo.env_registry.registration import aec_registry, register

#: game name -> PettingZoo id; the entry point is ``envs.<game>_v0:env``.
ENV_IDS = {"wapi": "drawluck/wapi-v0", "wakanda": "drawluck/wakanda-v0", "samurai": "drawluck/samurai-v0"}

for _game, _id in ENV_IDS.items():
    if _id not in aec_registry:
        register("aec", _id, entry_point=f"envs.{_game}_v0:env")
