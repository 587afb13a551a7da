#!/usr/bin/env python3
"""Plays the stonegame page (`stonegame serve`'s GET /) in headless Chromium.

Run by tests/it/web_browser.rs with the venv that tests/web_install makes:

    target/web-venv/bin/python tests/web/play_page.py --url http://127.0.0.1:PORT/ \
        [--screenshot PATH]
    target/web-venv/bin/python tests/web/play_page.py --url ... --expect-down

The page is driven only through its test hooks (docs/web.md): #row,
#variant, #seat, #strength, #start, .pile[data-index][data-size], #take,
#take-left, #take-right, #hint / #hints, #resign, #moves li(.blunder) and
#status. The script knows the game itself: it keeps the expected row
(applying the human's moves and the bot's, the bot's found from how the
piles changed), solves small rows exactly, and checks the page's piles,
move list, hints and status against that after every move.

Scenarios (one fresh page load each):
  won         a two-ends game won by always playing the page's hints
  blunder     a leftmost game lost after a blunder, shown as li.blunder
  illegal     a move taking more stones than the pile holds is refused,
              nothing changes; then a legal move, then resigning
  reload      the page reloaded mid-game restores it; the game is won
With --expect-down: the page is loaded, `READY-TO-STOP` is printed and a
line is awaited on stdin (the caller stops the server meanwhile); then
#start must show an error in #status.

The last line printed is `N passed, M failed`; the exit code is 0 exactly
when M is 0.
"""

import argparse
import functools
import json
import re
import sys
import traceback

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

# How long one wait may take (page load, a turn, a hint). Only a bound so
# that a broken page fails instead of hanging; no assertion is about time.
WAIT = 60
POLL = 0.05

TWO_ENDS = "two-ends"
LEFTMOST = "leftmost"


# ---------------------------------------------------------------- the game


@functools.lru_cache(maxsize=None)
def _wins(sizes, variant):
    """Does the player to move win on `sizes` (a tuple) with perfect play?"""
    return any(not _wins(after, variant) for _, after in _successors(sizes, variant))


def _successors(sizes, variant):
    """(move, sizes after it) for every legal move; a move is (side, take)."""
    out = []
    if not sizes:
        return out
    sides = ["L"] if variant == LEFTMOST or len(sizes) == 1 else ["L", "R"]
    for side in sides:
        pile = sizes[0] if side == "L" else sizes[-1]
        for take in range(1, pile + 1):
            out.append(((side, take), _apply_sizes(sizes, side, take)))
    return out


def _apply_sizes(sizes, side, take):
    sizes = list(sizes)
    at = 0 if side == "L" else len(sizes) - 1
    sizes[at] -= take
    if sizes[at] == 0:
        del sizes[at]
    return tuple(sizes)


class Game:
    """The expected state: the live piles as (original index, size), the
    plies played and which of them were blunders."""

    def __init__(self, row, variant):
        self.variant = variant
        self.piles = list(enumerate(row))
        self.plies = 0
        self.blunders = []

    def sizes(self):
        return tuple(size for _, size in self.piles)

    def over(self):
        return not self.piles

    def legal_moves(self):
        return [m for m, _ in _successors(self.sizes(), self.variant)]

    def winning_moves(self):
        """Every winning move, a one-pile row's only as `L` (the side of
        the one pile does not matter)."""
        return {
            m
            for m, after in _successors(self.sizes(), self.variant)
            if not _wins(after, self.variant)
        }

    def mover_wins(self):
        return _wins(self.sizes(), self.variant)

    def apply(self, side, take):
        assert (side, take) in self.legal_moves() or (
            len(self.piles) == 1 and ("L", take) in self.legal_moves()
        ), f"not a legal move {side} {take} on {self.piles}"
        if self.winning_moves() and normalize(self, side, take) not in self.winning_moves():
            self.blunders.append(self.plies)
        at = 0 if side == "L" else len(self.piles) - 1
        index, size = self.piles[at]
        if size == take:
            del self.piles[at]
        else:
            self.piles[at] = (index, size - take)
        self.plies += 1

    def after(self, side, take):
        g = Game([], self.variant)
        g.piles, g.plies, g.blunders = list(self.piles), self.plies, list(self.blunders)
        g.apply(side, take)
        return g

    def move_to(self, piles):
        """The legal move that turns this row into `piles`, or None."""
        for side, take in self.legal_moves():
            if self.after(side, take).piles == piles:
                return side, take
        return None


def normalize(game, side, take):
    return ("L", take) if len(game.piles) == 1 else (side, take)


def first_player_wins(row, variant):
    return _wins(tuple(row), variant)


# ---------------------------------------------------------------- the page

SNAPSHOT_JS = """
const q = (s) => document.querySelector(s);
const text = (e) => (e ? e.innerText || e.textContent || '' : null);
return JSON.stringify({
  status: text(q('#status')),
  piles: Array.from(document.querySelectorAll('.pile'))
    .map((e) => [e.getAttribute('data-index'), e.getAttribute('data-size')]),
  moves: Array.from(document.querySelectorAll('#moves li'))
    .map((e) => [text(e), e.classList.contains('blunder')]),
  hints: text(q('#hints')),
});
"""


class PageBroken(AssertionError):
    """The page does not load at all: the other scenarios are not run."""


class Snapshot:
    """What the page shows, read in one script call (no stale elements)."""

    def __init__(self, raw):
        data = json.loads(raw)
        self.status = (data["status"] or "").strip()
        self.piles = [(int(i), int(s)) for i, s in data["piles"]]
        self.moves = [t.strip() for t, _ in data["moves"]]
        self.blunders = [n for n, (_, b) in enumerate(data["moves"]) if b]
        self.hints = (data["hints"] or "").strip()

    def says(self, *words):
        low = self.status.lower()
        return any(w in low for w in words)

    def __str__(self):
        return (
            f"status={self.status!r} piles={self.piles} moves={self.moves} "
            f"blunders={self.blunders} hints={self.hints!r}"
        )


class Page:
    def __init__(self, driver, url):
        self.driver = driver
        self.url = url

    def open(self):
        self.driver.get(self.url)
        try:
            self.wait_for("the page with #start", lambda s: self.driver.find_elements(By.ID, "start"))
        except AssertionError as e:
            raise PageBroken(str(e)) from None

    def snapshot(self):
        return Snapshot(self.driver.execute_script(SNAPSHOT_JS))

    def wait_for(self, what, check):
        """Waits until check(snapshot) is truthy and returns its value; on
        timeout fails naming `what` and showing the last snapshot."""
        last = [None]

        def probe(_driver):
            last[0] = self.snapshot()
            return check(last[0])

        try:
            return WebDriverWait(self.driver, WAIT, poll_frequency=POLL).until(probe)
        except TimeoutException:
            raise AssertionError(f"timed out waiting for {what}; the page shows: {last[0]}") from None

    def set_text(self, element_id, value):
        el = self.driver.find_element(By.ID, element_id)
        el.clear()
        el.send_keys(str(value))

    def click(self, element_id):
        el = self.driver.find_element(By.ID, element_id)
        WebDriverWait(self.driver, WAIT, poll_frequency=POLL).until(
            lambda _d: el.is_enabled(), f"#{element_id} never enabled"
        )
        el.click()

    def start(self, row, variant, seat, strength=1):
        self.set_text("row", " ".join(map(str, row)))
        Select(self.driver.find_element(By.ID, "variant")).select_by_value(variant)
        Select(self.driver.find_element(By.ID, "seat")).select_by_value(seat)
        self.set_text("strength", strength)
        self.click("start")

    def take(self, side, take):
        self.set_text("take", take)
        self.click("take-left" if side == "L" else "take-right")

    def hints(self, game):
        """Clicks #hint and waits for #hints to list exactly the winning
        moves the script computes (or `every move loses`); returns them,
        left first."""
        expected = game.winning_moves()
        self.click("hint")

        def shown(s):
            if not expected:
                return "every move loses" in s.hints.lower()
            return parse_hints(s.hints, game) == expected

        want = sorted(expected) if expected else "every move loses"
        self.wait_for(f"#hints to show {want}", shown)
        return sorted(expected)

    def accept_alert(self):
        try:
            self.driver.switch_to.alert.accept()
        except NoAlertPresentException:
            pass


HINT_RE = re.compile(r"(?<![A-Za-z])([LR])\s*(\d+)")


def parse_hints(text, game):
    return {normalize(game, side, int(take)) for side, take in HINT_RE.findall(text)}


# ---------------------------------------------------------------- turns


def expect_piles(snap, game):
    return snap.piles == game.piles


def wait_start(page, game, seat):
    """After #start: the first position, with the bot's first move when
    the human sits second. Returns the snapshot."""
    bot_first = seat == "second"

    def ready(s):
        if not s.says("your move"):
            return None
        if not bot_first:
            return s if len(s.moves) == 0 and expect_piles(s, game) else None
        return s if len(s.moves) == 1 and game.move_to(s.piles) else None

    s = page.wait_for("the game to start (status `your move`)", ready)
    if bot_first:
        game.apply(*game.move_to(s.piles))
    return s


def play_turn(page, game, side, take):
    """Plays the human's move and waits until it is the human's turn again
    or the game is over, applying the bot's reply (found from the piles).
    Returns the snapshot."""
    before = game.plies
    mine = game.after(side, take)
    page.take(side, take)

    def settled(s):
        if s.says("you won"):
            return s if len(s.moves) == before + 1 and s.piles == mine.piles else None
        if s.says("your move", "you lost"):
            if len(s.moves) != before + 2:
                return None
            return s if mine.move_to(s.piles) else None
        return None

    s = page.wait_for(f"the turn after {side} {take} to settle", settled)
    game.apply(side, take)
    if not s.says("you won"):
        game.apply(*game.move_to(s.piles))
    check_page(s, game)
    return s


def check_page(s, game):
    assert s.piles == game.piles, f"piles {s.piles}, expected {game.piles}"
    assert len(s.moves) == game.plies, f"{len(s.moves)} moves listed, {game.plies} played: {s}"
    assert s.blunders == game.blunders, f"li.blunder at {s.blunders}, the blunders were {game.blunders}: {s}"
    if s.says("you won", "you lost"):
        assert game.over() or s.says("resign"), f"game over with piles left: {s}"


def play_hints_to_end(page, game):
    """Plays the first hinted move (or, in a lost position, one stone from
    the left) until the game ends; returns the last snapshot."""
    while True:
        moves = page.hints(game)
        side, take = moves[0] if moves else ("L", 1)
        s = play_turn(page, game, side, take)
        if s.says("you won", "you lost"):
            return s


# ---------------------------------------------------------------- scenarios

def scenario_won(page, screenshot):
    """Two-ends, seat first, a row the first player wins: the hints win it."""
    row = [3, 1, 4, 1, 5]
    assert first_player_wins(row, TWO_ENDS)
    game = Game(row, TWO_ENDS)
    page.open()
    page.start(row, TWO_ENDS, "first")
    wait_start(page, game, "first")
    assert game.mover_wins()
    first = True
    while True:
        moves = page.hints(game)
        assert moves, f"the page offers no winning move at a won position: {page.snapshot()}"
        s = play_turn(page, game, *moves[0])
        if first and screenshot and not s.says("you won"):
            page.hints(game)
            page.driver.save_screenshot(screenshot)
            print(f"screenshot: {screenshot}")
        first = False
        if s.says("you won", "you lost"):
            break
    assert s.says("you won"), f"played the hints and did not win: {s}"
    assert not s.blunders, f"moves marked as blunders in a won game: {s}"
    return f"won {row} in {game.plies} plies"


def scenario_blunder(page):
    """Leftmost, seat first, a won row: a losing move, then the bot wins."""
    row = [3, 2, 2, 1, 3]
    assert first_player_wins(row, LEFTMOST)
    game = Game(row, LEFTMOST)
    page.open()
    page.start(row, LEFTMOST, "first")
    wait_start(page, game, "first")
    winning = page.hints(game)
    losing = [m for m in game.legal_moves() if m not in winning]
    blunder_ply = game.plies
    s = play_turn(page, game, *losing[0])
    if not s.says("you lost"):
        s = play_hints_to_end(page, game)
    assert s.says("you lost"), f"a blunder against a perfect bot did not lose: {s}"
    assert blunder_ply in s.blunders, (
        f"the human's blunder (move {blunder_ply + 1}, {losing[0]}) is not li.blunder: {s}"
    )
    assert s.blunders == game.blunders, f"li.blunder at {s.blunders}, expected {game.blunders}"
    return f"lost {row} after blundering {losing[0]} ({game.plies} plies)"


REJECTION_WORDS = (
    "cannot", "holds", "reject", "refused", "illegal", "invalid", "too many", "more than", "at most",
)


def scenario_illegal(page):
    """A move taking more than the end pile holds is refused and changes
    nothing; a legal move after it is accepted; resigning loses."""
    row = [2, 5, 3, 4]
    game = Game(row, TWO_ENDS)
    page.open()
    page.start(row, TWO_ENDS, "first")
    wait_start(page, game, "first")
    too_many = game.piles[0][1] + 1
    page.take("L", too_many)
    s = page.wait_for(
        f"#status to report the refusal of L {too_many}",
        lambda s: s if s.says(*REJECTION_WORDS) else None,
    )
    check_page(s, game)
    rejection = s.status
    # A legal move still goes through (the page kept the right ply).
    play_turn(page, game, "R", 1)
    page.click("resign")
    page.accept_alert()
    s = page.wait_for("`you lost` after resigning", lambda s: s if s.says("you lost") else None)
    assert s.piles == game.piles, f"resigning changed the piles: {s}"
    return f"refused with {rejection!r}; then resigned"


def scenario_reload(page):
    """Seat second on a row the first player loses: two turns, a reload,
    and the restored game is won."""
    row = [3, 2, 2, 1, 3]
    assert not first_player_wins(row, TWO_ENDS)
    game = Game(row, TWO_ENDS)
    page.open()
    page.start(row, TWO_ENDS, "second")
    wait_start(page, game, "second")
    s = play_turn(page, game, *page.hints(game)[0])
    assert not s.says("you won", "you lost"), f"the game ended before the reload: {s}"
    plies = game.plies
    page.driver.refresh()
    s = page.wait_for(
        "the game restored after the reload",
        lambda s: s if s.says("your move") and s.piles == game.piles and len(s.moves) == plies else None,
    )
    check_page(s, game)
    s = play_hints_to_end(page, game)
    assert s.says("you won"), f"the reloaded game was not won with the hints: {s}"
    return f"reloaded {row} after {plies} plies, won in {game.plies}"


def scenario_server_down(page):
    """The page is loaded, the caller stops the server, #start shows an error."""
    page.open()
    print("READY-TO-STOP", flush=True)
    line = sys.stdin.readline()
    assert line, "stdin closed before the go-ahead"
    page.start([3, 1, 2], TWO_ENDS, "first")
    s = page.wait_for(
        "#status to report that the server cannot be reached",
        lambda s: s
        if s.says("error", "reach", "unavailable", "fail", "connect", "server", "network", "offline")
        and not s.says("your move", "bot is thinking")
        else None,
    )
    return f"status {s.status!r}"


# ---------------------------------------------------------------- main


def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1280,1100",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


def browser_log(driver):
    try:
        return [f"{e.get('level')} {e.get('message')}" for e in driver.get_log("browser")]
    except Exception as e:  # the log is only a help for reading a failure
        return [f"(no browser log: {e})"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the page, e.g. http://127.0.0.1:PORT/")
    parser.add_argument("--screenshot", help="save a screenshot of a game in progress here")
    parser.add_argument("--expect-down", action="store_true", help="the server-stopped scenario")
    parser.add_argument("--only", help="run only this scenario (won, blunder, illegal, reload)")
    args = parser.parse_args()

    if args.expect_down:
        scenarios = [("server_down", scenario_server_down)]
    else:
        scenarios = [
            ("won", lambda p: scenario_won(p, args.screenshot)),
            ("blunder", scenario_blunder),
            ("illegal", scenario_illegal),
            ("reload", scenario_reload),
        ]
        if args.only:
            scenarios = [(n, f) for n, f in scenarios if n == args.only]

    driver = make_driver()
    passed = failed = 0
    try:
        page = Page(driver, args.url)
        for at, (name, run) in enumerate(scenarios):
            try:
                detail = run(page)
                passed += 1
                print(f"ok {name}: {detail}", flush=True)
            except Exception as e:
                failed += 1
                print(f"FAIL {name}: {e}", flush=True)
                traceback.print_exc(file=sys.stdout)
                for line in browser_log(driver):
                    print(f"  browser: {line}")
                sys.stdout.flush()
                if isinstance(e, PageBroken):
                    for rest, _ in scenarios[at + 1:]:
                        failed += 1
                        print(f"FAIL {rest}: not run (the page does not load)", flush=True)
                    break
    finally:
        driver.quit()
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
