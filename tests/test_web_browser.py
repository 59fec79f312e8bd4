"""The page in a real headless Chromium: Debian's ``chromium`` package driven by Playwright
(no browser is ever downloaded). A whole game of each game is played to the end by
clicking on the board; an illegal click is refused by the server and changes nothing;
opponents' moves appear one by one; the finished game downloads as JSON and replays step
by step; each board is photographed.

Without ``/usr/bin/chromium`` these tests skip with a message naming it, except when
``DRAWLUCK_REQUIRE_BROWSER`` is set (``.ci/run`` sets it): then they fail.
``DRAWLUCK_SCREENSHOTS=DIR`` also writes each game's screenshot to DIR (the README's pictures).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import sync_playwright

import envs
from envs.core.render import PLAYER_COLORS
from tests.web_helpers import Client, serve, settle
from web import create_app
from web.limits import Limits

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MAX_CLICKS = 600  # far above a real game's clicks (Samurai: about 100)
SETTLED = "body[data-state=your-turn], body[data-state=done]"


def missing_browser() -> str | None:
    if os.access(CHROMIUM, os.X_OK):
        return None
    return (
        f"headless Chromium is missing: no {CHROMIUM} (Debian's 'chromium' package; "
        f"`make test` installs it when run as root)"
    )


@pytest.fixture(scope="module")
def browser():
    missing = missing_browser()
    if missing and os.environ.get("DRAWLUCK_REQUIRE_BROWSER"):
        pytest.fail(f"{missing}; DRAWLUCK_REQUIRE_BROWSER is set, so the browser tests must run")
    if missing:
        pytest.skip(missing)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def base_url():
    with serve(create_app(limits=Limits(creates_per_minute=1000, live_per_client=1000))) as base:
        yield base


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def start(
    page, base_url: str, game: str, seed: int, delay: int = 0, opponent: str = "random", think: float | None = None
) -> None:
    page.goto(f"{base_url}/?delay={delay}")
    page.wait_for_selector("body[data-state=setup]")
    page.select_option("#game", game)
    for select in page.locator("select.opponent").all():
        select.select_option(opponent)
    for seconds in page.locator(".think").all() if think is not None else []:
        seconds.fill(str(think))
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector(SETTLED)


def game_id(page) -> str:
    return page.evaluate("page.id")


def screenshot(page, game: str, tmp_path: Path) -> Path:
    """The page as a PNG, checked to show the board in the players' colours."""
    path = tmp_path / f"{game}.png"
    page.screenshot(path=str(path), full_page=True)
    with Image.open(path) as image:
        assert image.width >= 800 and image.height >= 400
        colours = {colour for _, colour in image.convert("RGB").getcolors(1 << 24)}
    assert tuple(PLAYER_COLORS[0]) in colours and tuple(PLAYER_COLORS[1]) in colours, "the seats' colours are drawn"
    assert len(colours) > 50, "a real picture, not a blank page"
    out = os.environ.get("DRAWLUCK_SCREENSHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        with Image.open(path) as image:  # a small palette PNG for the README
            small = image.convert("RGB").quantize(256, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
            small.save(Path(out) / f"{game}.png", optimize=True)
    return path


def refuse_illegal_click(page, client: Client, target) -> None:
    """A click on something that is no legal move now: the server refuses, nothing changes."""
    before = client.call("GET", f"/api/games/{game_id(page)}")
    log = page.inner_text("#log")
    target.click()
    page.wait_for_function("document.getElementById('message').textContent.startsWith('refused')")
    page.wait_for_selector(SETTLED)
    assert client.call("GET", f"/api/games/{game_id(page)}") == before
    assert page.inner_text("#log") == log


@pytest.mark.parametrize("game", envs.GAMES)
def test_a_whole_game_by_clicking(page, base_url, game, tmp_path):
    """Play to the end by clicking on legal things on the board (at random, seeded); once,
    click something illegal; then download the game and replay it."""
    client = Client(base_url)
    start(page, base_url, game, seed=7)
    rng = random.Random(game)
    clicks, refused, hints = 0, False, set()
    while page.get_attribute("body", "data-state") != "done":
        assert clicks < MAX_CLICKS, "the game must end"
        hints.add(page.inner_text("#status"))
        illegal = page.locator("#board [data-action]:not(.legal)")
        if not refused and illegal.count():
            refuse_illegal_click(page, client, illegal.nth(rng.randrange(illegal.count())))
            refused = True
        if clicks == 6:
            screenshot(page, game, tmp_path)
        legal = page.locator("#board .legal")
        assert legal.count(), "on the human's turn some move is clickable on the board"
        legal.nth(rng.randrange(legal.count())).click()
        page.wait_for_selector(SETTLED)
        clicks += 1
    assert refused
    view = client.call("GET", f"/api/games/{game_id(page)}")[1]
    assert view["done"] and page.inner_text("#result-text").startswith("Game over.")
    assert page.locator("#log li").count() == len(view["log"])
    if game == "samurai":  # a turn of several clicks says what the next click is for
        assert any("Click a hex for your" in hint for hint in hints)
    with page.expect_download() as download:
        page.click("#download")
    record = json.loads(Path(download.value.path()).read_text())
    assert record == view["record"]
    page.click("#replay")
    page.wait_for_selector("body[data-state=replay]")
    assert page.inner_text("#replay-step").startswith("Move 0 of")
    page.click("#replay-next")
    assert page.inner_text("#replay-step").startswith(f"Move 1 of {len(record['moves'])}: ")
    page.click("#replay-last")
    assert "the end" in page.inner_text("#status")


def test_samurai_choosing_the_hand_and_drafting_the_figures_by_clicking(page, base_url):
    """Samurai's set-up variants on the page: pick five tiles from your own, then place
    figures by clicking a type on a settlement, then play."""
    page.goto(f"{base_url}/?delay=0")
    page.wait_for_selector("body[data-state=setup]")
    page.select_option("#game", "samurai")
    page.select_option("[data-option=num_players]", "3")
    page.select_option("[data-option=choose_hand]", "true")
    page.select_option("[data-option=figure_setup]", '"draft"')
    assert page.locator("select.opponent").count() == 2 and page.locator("#seat option").count() == 3
    for select in page.locator("select.opponent").all():
        select.select_option("random")
    page.click("#start")
    page.wait_for_selector(SETTLED)
    client, rng, phases = Client(base_url), random.Random(1), []
    for _ in range(MAX_CLICKS):
        phase = client.call("GET", f"/api/games/{game_id(page)}")[1]["board"]["phase"]
        if not phases or phases[-1] != phase:
            phases.append(phase)
        if phase == "play":
            break
        legal = page.locator("#board .legal")
        legal.nth(rng.randrange(legal.count())).click()
        page.wait_for_selector(SETTLED)
    assert phases == ["choose_hand", "draft", "play"]
    assert page.locator("#board .legal").count()


def test_opponents_moves_appear_one_by_one(page, base_url):
    """After the human's move each opponent's move is shown in turn, then the human's turn."""
    start(page, base_url, "wapi", seed=3, delay=150)
    page.evaluate("""() => {
        window.seen = [];
        new MutationObserver(() => window.seen.push(document.getElementById('status').textContent))
            .observe(document.getElementById('status'), {childList: true, characterData: true, subtree: true});
    }""")
    page.locator("#board .legal").first.click()
    page.wait_for_selector("body[data-state=animating]")
    page.wait_for_selector(SETTLED)
    view = Client(base_url).call("GET", f"/api/games/{game_id(page)}")[1]
    seen = page.evaluate("window.seen")  # moves, and "X is thinking…" while the next turn is in the pool
    shown = [text for text in seen if not text.startswith("Your turn") and not text.endswith("is thinking…")]
    expected = [entry for entry in view["log"] if entry["player"] != 0][-3:]
    assert [text.split(": ", 1)[1] for text in shown[-3:]] == [entry["text"] for entry in expected]
    assert [text[0] for text in shown[-3:]] == ["B", "C", "D"]


def test_a_downloaded_game_replays_from_a_file(page, base_url, tmp_path):
    """The set-up page reads a record file and replays it step by step."""
    client = Client(base_url)
    status, data = client.call("POST", "/api/games", {"game": "wakanda", "opponents": ["random"], "seed": 4})
    view = data["view"]
    while not view["done"]:
        view = client.call("POST", f"/api/games/{data['id']}/moves", {"action": view["legal"][0]["action"]})[1]
        view = settle(client, data["id"], view)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(view["record"]))
    page.goto(f"{base_url}/?delay=0")
    page.wait_for_selector("body[data-state=setup]")
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("body[data-state=replay]")
    for step in range(1, 4):
        page.click("#replay-next")
        assert page.inner_text("#replay-step").startswith(f"Move {step} of {len(view['log'])}: ")
    page.click("#replay-prev")
    assert page.inner_text("#replay-step").startswith("Move 2 of")
    path.write_text("{not json")
    page.click("#replay-close")
    page.set_input_files("#record-file", str(path))
    page.wait_for_function("document.getElementById('message').textContent.startsWith('not a game record')")


def test_the_page_says_the_opponents_are_thinking(page, base_url):
    """The opponents think in the server's worker pool: meanwhile the page says so and asks
    for their moves (GET ?since=N) until they are in, then shows them."""
    start(page, base_url, "wakanda", seed=5, opponent="ismcts", think=0.3)
    polls = []
    page.on("request", lambda request: polls.append(request.url) if "since=" in request.url else None)
    page.locator("#legal button").first.click()
    page.wait_for_selector("body[data-state=thinking]")
    assert page.inner_text("#status") == "B (ismcts) is thinking…"
    page.wait_for_selector(SETTLED, timeout=30_000)
    view = Client(base_url).call("GET", f"/api/games/{game_id(page)}")[1]
    assert view["your_turn"] and [entry["player"] for entry in view["log"]][:2] == [0, 1]
    assert page.locator("#log li").count() == len(view["log"]) and polls


def test_levels_are_the_default_choice_and_agents_by_name_the_advanced_one(page, base_url):
    """Each opponent is chosen from the levels (level 3 preselected) or, under "Advanced", by agent
    name; beside it, the level's rating where it was measured for the configuration, else what it is;
    a level has no thinking time to set."""
    from web.opponents import level_ratings, offered_opponents

    page.goto(f"{base_url}/?delay=0")
    page.wait_for_selector("body[data-state=setup]")
    page.select_option("#game", "wakanda")
    select = page.locator("select.opponent")
    assert select.count() == 1 and select.input_value() == "level:3"
    script = "[...document.querySelectorAll('select.opponent optgroup')]"
    script += ".map(g => [g.label, [...g.children].map(o => o.value)])"
    groups = page.evaluate(script)
    assert groups == [
        ["Levels", [f"level:{n}" for n in range(1, 6)]],
        ["Advanced: agents by name", ["random", "heuristic", "ismcts", "trained", "best"]],
    ]
    offered = offered_opponents()
    for advanced in (False, True):
        page.select_option("[data-option=advanced]", json.dumps(advanced))
        for name in ("level:2", "level:5"):
            select.select_option(name)
            ratings = level_ratings().get(name, [])
            measured = [r for r in ratings if r["game"] == "wakanda" and r["options"] == {"advanced": advanced}]
            about = page.inner_text("#opponents .about")
            if measured:
                assert about.startswith(f"rating {measured[0]['rating']:,}") and "heuristic 1,000" in about
            else:
                assert about == offered[name].help
            assert page.locator(".think").is_hidden(), "a level's thinking time is fixed"
    select.select_option("ismcts")
    assert page.locator(".think").is_visible() and page.inner_text("#opponents .about") == offered["ismcts"].help
    select.select_option("level:2")
    page.fill("#seed", "3")
    page.click("#start")
    page.wait_for_selector(SETTLED)
    assert Client(base_url).call("GET", f"/api/games/{game_id(page)}")[1]["players"] == ["you", "level:2"]
