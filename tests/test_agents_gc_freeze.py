"""A search on a time budget keeps the garbage collector's full collections out of its moves
(agents/gc_freeze.py): the objects alive when it is made are frozen, garbage is collected first, and a
process freezes again only after new imports."""

import gc
import importlib
import uuid
import weakref

from agents import make_agent
from envs.games import make_game


class Cycle:
    """An object that refers to itself: only the cyclic collector can free it."""

    def __init__(self) -> None:
        self.me = self


def import_fresh_module(tmp_path, monkeypatch) -> None:
    """Import a module never imported before, as a process does when it loads a library."""
    name = f"drawluck_fresh_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module(name)


def is_walked_by_collections(obj) -> bool:
    """Whether a collection looks at ``obj`` (frozen objects are in none of the three generations)."""
    return any(tracked is obj for tracked in gc.get_objects())


def test_a_timed_search_freezes_what_is_alive_when_it_is_made(tmp_path, monkeypatch):
    game = make_game("wakanda")
    import_fresh_module(tmp_path, monkeypatch)
    alive = [[1, 2, 3]]
    assert is_walked_by_collections(alive)
    make_agent("ismcts", game, time_limit=0.01, seed=0)
    assert not is_walked_by_collections(alive)
    assert alive == [[1, 2, 3]]  # frozen objects stay as they were, and reachable


def test_garbage_is_collected_before_the_freeze_not_kept(tmp_path, monkeypatch):
    game = make_game("wakanda")
    import_fresh_module(tmp_path, monkeypatch)
    garbage = weakref.ref(Cycle())
    assert garbage() is not None  # a cycle outlives its last reference until a collection
    make_agent("ismcts", game, time_limit=0.01, seed=0)
    assert garbage() is None


def test_the_process_freezes_again_only_after_new_imports(tmp_path, monkeypatch):
    game = make_game("samurai", num_players=3)
    make_agent("best", game, time_limit=0.01, seed=0)
    later = [[4, 5]]
    make_agent("best", game, time_limit=0.01, seed=1)
    assert is_walked_by_collections(later)  # nothing new imported: no second freeze
    import_fresh_module(tmp_path, monkeypatch)
    make_agent("best", game, time_limit=0.01, seed=2)
    assert not is_walked_by_collections(later)


def test_a_search_on_iterations_leaves_the_collector_alone(tmp_path, monkeypatch):
    game = make_game("wakanda")
    import_fresh_module(tmp_path, monkeypatch)
    alive = [[1, 2, 3]]
    make_agent("ismcts", game, iterations=10, seed=0)
    assert is_walked_by_collections(alive)
