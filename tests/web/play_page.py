#!/usr/bin/env python3
"""Plays the stonegame page (`stonegame serve`'s GET /) in headless Chromium.

Run by tests/it/web_browser.rs with the venv that tests/web_install makes:

    target/web-venv/bin/python tests/web/play_page.py --url http://127.0.0.1:PORT/ \
        --axe target/web-axe/node_modules/axe-core/axe.min.js [--screenshot PATH]
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
  pick        a stone is never a one-tap move: a first tap selects, a
              second takes (mouse and keyboard)
  axe         axe-core (4.x, from --axe) in every state, at 1280 × 1100
              and 390 × 844
  (and remoteness, keyboard, long_row, phone, analysis, botbot: see below)
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
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
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


@functools.lru_cache(maxsize=None)
def remoteness(sizes, variant):
    """The remoteness of `sizes` (docs/game.md §5), by the game tree alone:
    0 for the empty row; a won position (a child of even remoteness) is 1 +
    the smallest even child, a lost one 1 + the largest child. Odd exactly
    when the player to move wins."""
    if not sizes:
        return 0
    children = [remoteness(after, variant) for _, after in _successors(sizes, variant)]
    lost = [r for r in children if r % 2 == 0]
    return 1 + (min(lost) if lost else max(children))


def outcome_in(r):
    """For the player to move at remoteness r: "win in 7" / "lose in 12"."""
    return f"{'win' if r % 2 == 1 else 'lose'} in {r}"


def move_outcome(r_after):
    """For the player who makes a move leaving remoteness r_after: this move
    and r_after more plies, won exactly when r_after is even."""
    return f"{'win' if r_after % 2 == 0 else 'lose'} in {r_after + 1}"


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
        # (sizes before, sizes after) of every move played.
        self.history = []

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

    def remoteness(self):
        return remoteness(self.sizes(), self.variant)

    def end_index(self, side):
        """The original index of the end pile on `side`."""
        return self.piles[0][0] if side == "L" else self.piles[-1][0]

    def apply(self, side, take):
        assert (side, take) in self.legal_moves() or (
            len(self.piles) == 1 and ("L", take) in self.legal_moves()
        ), f"not a legal move {side} {take} on {self.piles}"
        if self.winning_moves() and normalize(self, side, take) not in self.winning_moves():
            self.blunders.append(self.plies)
        before = self.sizes()
        at = 0 if side == "L" else len(self.piles) - 1
        index, size = self.piles[at]
        if size == take:
            del self.piles[at]
        else:
            self.piles[at] = (index, size - take)
        self.plies += 1
        self.history.append((before, self.sizes()))

    def after(self, side, take):
        g = Game([], self.variant)
        g.piles, g.plies, g.blunders = list(self.piles), self.plies, list(self.blunders)
        g.history = list(self.history)
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
const last = q('#board .last-move');
return JSON.stringify({
  status: text(q('#status')),
  statusClass: q('#status').className,
  piles: Array.from(document.querySelectorAll('#board .pile'))
    .map((e) => [e.getAttribute('data-index'), e.getAttribute('data-size')]),
  moves: Array.from(document.querySelectorAll('#moves li'))
    .map((e) => [text(e), e.classList.contains('blunder')]),
  hints: text(q('#hints')),
  hintItems: Array.from(document.querySelectorAll('#hints li')).map(text),
  lastMove: last ? last.getAttribute('data-index') : null,
  confirm: !q('#resign-confirm').hidden ? text(q('#resign-confirm')) : null,
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
        self.status_class = set((data["statusClass"] or "").split())
        self.hint_items = [t.strip() for t in data["hintItems"]]
        self.last_move = None if data["lastMove"] is None else int(data["lastMove"])
        self.confirm = data["confirm"]

    def says(self, *words):
        low = self.status.lower()
        return any(w in low for w in words)

    def __str__(self):
        return (
            f"status={self.status!r} piles={self.piles} moves={self.moves} "
            f"blunders={self.blunders} hints={self.hints!r} class={sorted(self.status_class)} "
            f"last_move={self.last_move} confirm={self.confirm!r}"
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
        moves the script computes (or `every move loses`), each with the
        remoteness it leaves as the solver has it; returns them, left
        first."""
        expected = game.winning_moves()
        self.click("hint")

        def shown(s):
            if not expected:
                return "every move loses" in s.hints.lower() and s.hint_items
            return parse_hints(s.hints, game) == expected and len(s.hint_items) == len(expected)

        want = sorted(expected) if expected else "every move loses"
        s = self.wait_for(f"#hints to show {want}", lambda s: s if shown(s) else None)
        check_hint_remoteness(s, game)
        check_units(self, "with hints")
        return sorted(expected)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait_js(self, what, script, *args):
        """Waits until the script returns a truthy value and returns it."""
        last = [None]

        def probe(_driver):
            last[0] = self.js(script, *args)
            return last[0]

        try:
            return WebDriverWait(self.driver, WAIT, poll_frequency=POLL).until(probe)
        except TimeoutException:
            raise AssertionError(f"timed out waiting for {what}; last: {last[0]!r}") from None

    def fresh(self, suffix=""):
        """Loads the page (with `suffix`, e.g. an analysis address) as in a
        new tab: nothing in its sessionStorage, so no game."""
        self.driver.get(self.url)
        self.js("sessionStorage.clear()")
        self.driver.get("about:blank")
        self.goto(self.url + suffix)

    def goto(self, url):
        """Loads `url` (a fresh document) and waits for the page."""
        self.driver.get(url)
        self.wait_for("the page with #start", lambda s: self.driver.find_elements(By.ID, "start"))



def no_alert(driver):
    try:
        driver.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


HINT_RE = re.compile(r"(?<![A-Za-z])([LR])\s*(\d+)")
HINT_ITEM_RE = re.compile(r"^([LR]) (\d+) \(take \d+ from the (?:left|right)\): ((?:win|lose) in (\d+)) (ply|plies)$")
PERFECT_RE = re.compile(r"perfect play: (you|the bot) wins? in (\d+) (?:ply|plies)")
# A game's options: does the server fill GameState.remoteness and
# PlayedMove's remoteness (issue 31 §3)? When set, their absence fails.
REQUIRE_GAME_REMOTENESS = [False]


def parse_hints(text, game):
    return {normalize(game, side, int(take)) for side, take in HINT_RE.findall(text)}


def check_hint_remoteness(s, game):
    """Every hint says the remoteness its move leaves, as the solver has it;
    in a lost position the one move listed resists longest and the head
    says how long the bot needs."""
    for item in s.hint_items:
        m = HINT_ITEM_RE.match(item)
        assert m, f"hint {item!r} is not `L k (take k from the left): win in N plies`: {s}"
        side, take, said = m.group(1), int(m.group(2)), m.group(3)
        assert m.group(5) == ("ply" if m.group(4) == "1" else "plies"), f"hint {item!r}: ply or plies?"
        after = game.after(side, take)
        want = move_outcome(after.remoteness())
        assert said == want, f"hint {item!r}: the solver says {want} for {side} {take} on {game.sizes()}"
    r = game.remoteness()
    if not game.winning_moves():
        head = f"(perfect play: the bot wins in {r} {'ply' if r == 1 else 'plies'})"
        assert head in s.hints, f"#hints lacks {head!r}: {s}"
        assert s.hint_items and f"lose in {r} " in s.hint_items[0], (
            f"the move listed in a lost position of remoteness {r} does not resist longest: {s}"
        )
    else:
        fastest = [i for i in s.hint_items if f"win in {r} " in i + " "]
        assert fastest, f"no hint wins in {r} plies, the remoteness of {game.sizes()}: {s}"


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


def play_turn(page, game, side, take, act=None):
    """Plays the human's move (with `act()` when given, else the take box
    and a click) and waits until it is the human's turn again or the game
    is over, applying the bot's reply (found from the piles). Returns the
    snapshot."""
    before = game.plies
    mine = game.after(side, take)
    if act:
        act()
    else:
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
    check_units(page, f"after {side} {take}")
    game.apply(side, take)
    if not s.says("you won"):
        bot = game.move_to(s.piles)
        check_bot_move(s, game, *bot)
        game.apply(*bot)
    check_page(s, game)
    return s


def check_bot_move(s, game, side, take):
    """The bot's move (side, take) on `game` (before it) is marked on the
    board (`.last-move` on its pile, or on the place of the pile it emptied)
    and said in #status."""
    one_pile = len(game.piles) == 1
    index = game.end_index(side)
    assert s.last_move == index, f"the bot took from pile {index}, .last-move is on {s.last_move}: {s}"
    if s.says("your move"):
        sides = ("left", "right") if one_pile else ("left" if side == "L" else "right",)
        said = [f"bot took {take} from the {w} — your move" for w in sides]
        assert any(w in s.status for w in said), f"#status does not say {said[0]!r}: {s}"


ONE_PLIES_JS = """
const texts = [document.body.innerText];
for (const e of document.querySelectorAll('[title], [aria-label]')) {
  texts.push(e.getAttribute('title') || '', e.getAttribute('aria-label') || '');
}
const bad = texts.filter((t) => /(^|[^\\d.])1 plies/.test(t));
return bad.length ? bad.slice(0, 3) : null;
"""


def check_units(page, where):
    """"1 ply", never "1 plies", anywhere on the page (text, titles, labels)."""
    bad = page.js(ONE_PLIES_JS)
    assert not bad, f"{where}: the page says `1 plies`: {bad}"


def check_page(s, game):
    assert s.piles == game.piles, f"piles {s.piles}, expected {game.piles}"
    assert len(s.moves) == game.plies, f"{len(s.moves)} moves listed, {game.plies} played: {s}"
    assert s.blunders == game.blunders, f"li.blunder at {s.blunders}, the blunders were {game.blunders}: {s}"
    if s.says("you won", "you lost"):
        assert game.over() or s.says("resign"), f"game over with piles left: {s}"
        won = s.says("you won")
        want = {"end", "won" if won else "lost"}
        assert want <= s.status_class and not ({"won", "lost"} - want) & s.status_class, (
            f"#status class {sorted(s.status_class)}, expected {sorted(want)}: {s}"
        )
    check_game_remoteness(s, game)


def check_game_remoteness(s, game):
    """The remoteness in #status (`perfect play: …`) and in the move list
    (`— win in 7`, `— win in 7 → lose in 12`) is the solver's wherever it
    is shown; with REQUIRE_GAME_REMOTENESS it must be shown."""
    m = PERFECT_RE.search(s.status)
    if s.says("your move") and not game.over():
        r = game.remoteness()
        if m:
            who, n = m.group(1), int(m.group(2))
            want = ("you" if r % 2 == 1 else "the bot", r)
            assert (who, n) == want, f"#status says {m.group(0)!r}; the solver: {want[0]} in {r}: {s}"
        elif "rejected" not in s.status:
            assert not REQUIRE_GAME_REMOTENESS[0], f"#status has no `perfect play: …` (remoteness {r}): {s}"
    elif m:
        raise AssertionError(f"`perfect play` in #status when it is not the human's move: {s}")
    for k, (text, (before, after)) in enumerate(zip(s.moves, game.history)):
        want_after = move_outcome(remoteness(after, game.variant))
        want_before = outcome_in(remoteness(before, game.variant))
        want = want_after if want_before == want_after else f"{want_before} → {want_after}"
        if " — " in text:
            said = text.split(" — ", 1)[1]
            assert said == want, f"move {k + 1} ({text!r}): the solver says {want!r}: {s}"
        else:
            assert not REQUIRE_GAME_REMOTENESS[0], f"move {k + 1} ({text!r}) shows no remoteness: {s}"


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
    assert s.says("you took the last stone"), f"#status does not say how the game was won: {s}"
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
    assert s.says("the bot took the last stone"), f"#status does not say how the game was lost: {s}"
    assert s.last_move is not None, f"the bot's winning move is not marked: {s}"
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
    # Resign asks once more, inline: "no" keeps the game, "yes" resigns.
    page.click("resign")
    s = page.wait_for("the inline `resign? yes / no`", lambda s: s if s.confirm else None)
    assert "resign?" in s.confirm.lower(), f"#resign-confirm says {s.confirm!r}: {s}"
    assert no_alert(page.driver), "resigning opened a browser dialog"
    page.click("resign-no")
    s = page.wait_for("the confirmation gone after `no`", lambda s: s if s.confirm is None else None)
    assert s.says("your move") and not s.says("you lost"), f"`no` did not keep the game: {s}"
    check_page(s, game)
    page.click("resign")
    page.wait_for("the inline `resign? yes / no` again", lambda s: s if s.confirm else None)
    page.click("resign-yes")
    s = page.wait_for("`you lost` after resigning", lambda s: s if s.says("you lost") else None)
    assert s.piles == game.piles, f"resigning changed the piles: {s}"
    assert s.says("you resigned"), f"#status does not say the game was resigned: {s}"
    assert {"end", "lost"} <= s.status_class and "won" not in s.status_class, f"#status class: {s}"
    return f"refused with {rejection!r}; resign: no, then yes"


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


def scenario_remoteness(page):
    """Seat second on a row the first player wins, so the human starts
    lost: every hint (the longest resistance while lost, the fastest win
    once the bot errs) says the remoteness the solver gives, and the status
    and the move list say theirs where the server sends them."""
    row = [2, 3, 1, 4, 3]
    assert first_player_wins(row, TWO_ENDS)
    game = Game(row, TWO_ENDS)
    page.open()
    page.start(row, TWO_ENDS, "second")
    s = wait_start(page, game, "second")
    check_page(s, game)
    while True:
        page.hints(game)
        s = page.snapshot()
        m = HINT_ITEM_RE.match(s.hint_items[0])
        s = play_turn(page, game, m.group(1), int(m.group(2)))
        if s.says("you won", "you lost"):
            break
    shown = sum(" — " in t for t in s.moves)
    return f"{row}: {game.plies} plies, {shown} moves listed with their remoteness"


def key(page, *keys):
    ActionChains(page.driver).send_keys(*keys).perform()


def active_id(page):
    return page.js("return document.activeElement ? document.activeElement.id : null")


def tab_to(page, element_id):
    """Presses Tab until `element_id` has the focus (at most 80 times)."""
    for _ in range(80):
        if active_id(page) == element_id:
            return
        key(page, Keys.TAB)
    raise AssertionError(f"Tab never reached #{element_id} (the focus is on #{active_id(page)})")


def type_into(page, element_id, text):
    tab_to(page, element_id)
    ActionChains(page.driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
    key(page, str(text))


def scenario_keyboard(page):
    """A whole game with the keyboard only: Tab to the fields and buttons,
    type, Enter; hints asked for with the keyboard too."""
    row = [3, 1, 4, 1, 5]
    game = Game(row, TWO_ENDS)
    page.open()
    page.js("document.activeElement && document.activeElement.blur()")
    type_into(page, "row", " ".join(map(str, row)))
    tab_to(page, "variant")
    key(page, "t")
    tab_to(page, "seat")
    key(page, "f")
    type_into(page, "strength", 1)
    got = page.js("return [document.getElementById('variant').value, document.getElementById('seat').value]")
    assert got == [TWO_ENDS, "first"], f"the keyboard set variant and seat to {got}"
    tab_to(page, "start")
    key(page, Keys.ENTER)
    wait_start(page, game, "first")
    turns = 0
    while True:
        tab_to(page, "hint")
        key(page, Keys.ENTER)
        expected = game.winning_moves()
        page.wait_for(
            "#hints after Enter on #hint",
            lambda s: s if (parse_hints(s.hints, game) == expected if expected else "every move loses" in s.hints) else None,
        )
        side, take = sorted(expected)[0] if expected else ("L", 1)

        def act(side=side, take=take):
            type_into(page, "take", take)
            tab_to(page, "take-left" if side == "L" else "take-right")
            key(page, Keys.ENTER)

        s = play_turn(page, game, side, take, act=act)
        turns += 1
        if s.says("you won", "you lost"):
            break
    assert s.says("you won"), f"the keyboard game on the hints was not won: {s}"
    return f"won {row} in {turns} turns from the keyboard"


PICK_JS = """
const q = (s) => document.querySelector(s);
return JSON.stringify({
  pick: (q('#pick').textContent || '').trim(),
  take: q('#take').value,
  piles: Array.from(document.querySelectorAll('#board .pile.picked')).map((e) => e.dataset.index),
  stones: document.querySelectorAll('#board .stone.picked').length,
  armed: Array.from(document.querySelectorAll('#take-row button.armed')).map((e) => e.id),
  focusable: Array.from(document.querySelectorAll('#board .pile.clickable'))
    .map((e) => [e.tabIndex, e.getAttribute('role')]),
});
"""


def pick_state(page):
    return json.loads(page.js(PICK_JS))


def end_pile_css(side):
    return "#board .pile.end-left" if side == "L" else "#board .pile.end-right"


def stone_at(page, side, take):
    """The stone of the end pile on `side` that takes `take` stones (it and those above it)."""
    return page.driver.find_element(By.CSS_SELECTOR, f'{end_pile_css(side)} .stone[data-take="{take}"]')


def expect_picked(page, game, side, take, what):
    """`take` stones of the `side` end are selected (the box, the marks,
    #pick) and no move was made: the piles, the list and the status are as
    they were."""
    st = pick_state(page)
    where = "left" if side == "L" or len(game.piles) == 1 else "right"
    assert st["take"] == str(take), f"{what}: the take box says {st['take']!r}, not {take}: {st}"
    assert f"take {take} from the {where}" in st["pick"], f"{what}: #pick says {st['pick']!r}: {st}"
    assert st["piles"] == [str(game.end_index(side))], f"{what}: the pile marked .picked: {st}"
    assert st["stones"] == take, f"{what}: {st['stones']} stones marked .picked, not {take}: {st}"
    # Nothing sent: give a move the time to show, then check that none did.
    time.sleep(0.4)
    s = page.snapshot()
    assert s.piles == game.piles and len(s.moves) == game.plies and s.says("your move"), (
        f"{what}: a first tap made a move: {s}"
    )
    assert not page.js("return document.body.classList.contains('busy')"), f"{what}: a call is running: {s}"
    return st


def expect_no_pick(page, what):
    st = pick_state(page)
    assert not st["pick"] and not st["piles"] and not st["stones"] and not st["armed"], (
        f"{what}: the selection is still there: {st}"
    )


def scenario_pick(page):
    """A stone is never a one-tap move: a first tap (click) on a stone of an
    end pile selects it and those above it (the take box shows the amount,
    the pile and the side's button are marked, #pick says it) and sends
    nothing; a tap on another stone selects that one; Escape, a hint, an
    edit of the box clear it; a second tap on the selected stone makes the
    move. From the keyboard: an end pile takes the focus, ↓ selects one
    stone more, Enter takes them."""
    row = [3, 1, 4, 1, 5]
    game = Game(row, TWO_ENDS)
    page.open()
    page.start(row, TWO_ENDS, "first")
    wait_start(page, game, "first")
    st = pick_state(page)
    assert st["focusable"] and all(t == 0 and r == "button" for t, r in st["focusable"]), (
        f"the end piles are not keyboard controls: {st['focusable']}"
    )
    stone_at(page, "R", 2).click()
    expect_picked(page, game, "R", 2, "a tap on the second stone of the right pile")
    assert pick_state(page)["armed"] == ["take-right"], f"#take-right not marked: {pick_state(page)}"
    stone_at(page, "R", 1).click()
    expect_picked(page, game, "R", 1, "a tap on another stone")
    key(page, Keys.ESCAPE)
    expect_no_pick(page, "after Escape")
    stone_at(page, "L", 3).click()
    expect_picked(page, game, "L", 3, "a tap on the left pile's bottom stone")
    moves = page.hints(game)
    expect_no_pick(page, "after a hint")
    stone_at(page, "L", 1).click()
    expect_picked(page, game, "L", 1, "a tap before editing the box")
    page.set_text("take", 2)
    expect_no_pick(page, "after an edit of the take box")
    # Two taps on the hint's move make it.
    side, take = moves[0]
    stone_at(page, side, take).click()
    expect_picked(page, game, side, take, f"the first tap of {side} {take}")
    s = play_turn(page, game, side, take, act=lambda: stone_at(page, side, take).click())
    expect_no_pick(page, "after the move")
    taps = f"two taps made {side} {take}"
    if s.says("you won", "you lost"):
        return taps
    # The keyboard: focus an end pile, ↓ take times, Enter.
    side, take = page.hints(game)[0]
    pile = page.driver.find_element(By.CSS_SELECTOR, end_pile_css(side))
    page.js("arguments[0].focus()", pile)
    for _ in range(take):
        key(page, Keys.ARROW_DOWN)
    expect_picked(page, game, side, take, f"↓ {take} times on the {side} pile")
    play_turn(page, game, side, take, act=lambda: key(page, Keys.ENTER))
    return f"{taps}; ↓ {take}× and Enter made {side} {take}"


PHONE_JS = """
const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; };
const shown = (e) => { const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0; };
const name = (e) => e.id ? '#' + e.id : e.tagName.toLowerCase() + '.' + e.className + ' ' + (e.textContent || '').trim().slice(0, 20);
return JSON.stringify({
  inner: [window.innerWidth, window.innerHeight],
  scrollWidth: document.documentElement.scrollWidth,
  take: ['take-left', 'take', 'take-right'].map((id) => r(document.getElementById(id))),
  controls: Array.from(document.querySelectorAll('button, input, select, summary, a[href], .elided'))
    .filter(shown).map((e) => [name(e), r(e)[3]]),
  piles: Array.from(document.querySelectorAll('#board .pile')).map((e) => [e.dataset.index, r(e)[3]]),
  board: r(document.getElementById('board')),
});
"""

CLIP_JS = """
const board = document.getElementById('board').getBoundingClientRect();
const bad = [];
for (const c of document.querySelectorAll('#board .count')) {
  const b = c.getBoundingClientRect();
  if (c.scrollWidth > c.clientWidth + 1 || b.left < board.left - 1 || b.right > board.right + 1
      || b.left < 0 || b.right > window.innerWidth + 1) {
    bad.push([c.parentElement.dataset.index, c.textContent]);
  }
}
const el = document.querySelector('#board .elided');
return JSON.stringify({
  bad,
  elided: el ? el.textContent : null,
  scrollWidth: document.documentElement.scrollWidth,
  inner: window.innerWidth,
});
"""


def layout(page, script):
    return json.loads(page.js(script))


def check_phone_layout(page, what):
    got = layout(page, PHONE_JS)
    (lx, ly, lw, lh), (tx, ty, tw, th), (rx, ry, rw, rh) = got["take"]
    assert max(ly, ty, ry) < min(ly + lh, ty + th, ry + rh), f"{what}: the take controls are not on one line: {got['take']}"
    assert lx + lw <= tx and tx + tw <= rx, f"{what}: the take controls are not left, amount, right: {got['take']}"
    low = [(n, h) for n, h in got["controls"] if h < 44]
    assert not low, f"{what}: controls lower than 44 px: {low}"
    low = [(i, h) for i, h in got["piles"] if h < 44]
    assert not low, f"{what}: piles lower than 44 px: {low}"
    assert got["scrollWidth"] <= got["inner"][0], f"{what}: the page scrolls sideways: {got['scrollWidth']} > {got['inner'][0]}"
    return got


def board_in_view(page):
    got = layout(page, PHONE_JS)
    _, top, _, height = got["board"]
    return got if top >= 0 and top + height <= got["inner"][1] else None


def set_phone(page, on):
    if on:
        page.driver.set_window_size(390, 844)
        inner = page.js("return [window.innerWidth, window.innerHeight]")
        if inner != [390, 844]:
            # The window has a frame: size the viewport itself.
            page.driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
            )
    else:
        page.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        page.driver.set_window_size(1280, 1100)


LONG_ROW = [9223372036854775807] + [(7 * i) % 12 + 1 for i in range(1, 39)] + [1234567]


def check_long_row(page, what):
    """The 40-pile row at the start: its two ends as `.pile`, the middle as
    `.elided` saying how many piles it hides; no count clipped; opening it
    shows every pile."""
    n = len(LONG_ROW)
    s = page.wait_for(f"{what}: the long row drawn", lambda s: s if s.says("your move") and s.piles else None)
    got = layout(page, CLIP_JS)
    shown = s.piles
    hidden = n - len(shown)
    assert hidden > 0 and got["elided"] is not None, f"{what}: {n} piles, no .elided: {got}"
    assert got["elided"] == f"… {hidden} piles …", f"{what}: .elided says {got['elided']!r}, {hidden} hidden"
    k = next(i for i, (idx, _) in enumerate(shown) if idx != i) if any(idx != i for i, (idx, _) in enumerate(shown)) else len(shown)
    assert shown == [(i, LONG_ROW[i]) for i in range(k)] + [(i, LONG_ROW[i]) for i in range(n - (len(shown) - k), n)], (
        f"{what}: the piles shown are not the two ends of the row: {shown}"
    )
    assert not got["bad"], f"{what}: clipped counts {got['bad']}"
    assert got["scrollWidth"] <= got["inner"], f"{what}: the page scrolls sideways: {got}"
    page.driver.find_element(By.CSS_SELECTOR, "#board .elided").click()
    s = page.wait_for(f"{what}: every pile after opening .elided", lambda s: s if len(s.piles) == n else None)
    assert s.piles == list(enumerate(LONG_ROW)), f"{what}: the opened row is not the row: {s.piles}"
    got = layout(page, CLIP_JS)
    assert got["elided"] is None and not got["bad"], f"{what}: after opening: {got}"
    assert got["scrollWidth"] <= got["inner"], f"{what}: the page scrolls sideways after opening: {got}"
    return hidden


def scenario_long_row(page):
    """40 piles at 1280 px: the ends, `.elided` with its count, opened."""
    page.open()
    page.start(LONG_ROW, TWO_ENDS, "first")
    hidden = check_long_row(page, "1280 px")
    return f"{len(LONG_ROW)} piles: {hidden} elided, opened"


def scenario_phone(page):
    """390 × 844: the take controls on one line in order, every control and
    pile ≥ 44 px high, no sideways scrolling, the board in view at Start and
    after the bot's move; the long row too."""
    set_phone(page, True)
    try:
        row = [3, 1, 4, 1, 5]
        game = Game(row, TWO_ENDS)
        page.open()
        page.js("window.scrollTo(0, 0)")
        page.start(row, TWO_ENDS, "first")
        wait_start(page, game, "first")
        got = check_phone_layout(page, "after Start")
        assert board_in_view(page), f"the board is not in view after Start: {layout(page, PHONE_JS)['board']}"
        moves = page.hints(game)
        page.js("window.scrollTo(0, 0)")
        s = play_turn(page, game, *moves[0])
        assert not s.says("you won", "you lost"), f"the game ended at once: {s}"
        check_phone_layout(page, "after the bot's move")
        assert board_in_view(page), f"the board is not in view after the bot's move: {layout(page, PHONE_JS)['board']}"
        page.open()
        page.start(LONG_ROW, TWO_ENDS, "first")
        hidden = check_long_row(page, "390 px")
        check_phone_layout(page, "the long row opened")
        # The analysis board on the phone: no sideways scrolling, tall controls.
        page.driver.get(page.url + "#/analyze?row=3,1,4,1,5&variant=two-ends")
        wait_analysis(page, (3, 1, 4, 1, 5), TWO_ENDS)
        an = layout(page, PHONE_JS)
        low = [(n, h) for n, h in an["controls"] if h < 44]
        assert not low, f"the analysis board: controls lower than 44 px: {low}"
        assert an["scrollWidth"] <= an["inner"][0], f"the analysis board scrolls sideways: {an['scrollWidth']}"
        return (
            f"viewport {got['inner']}: {len(got['controls'])} controls ≥ 44 px; long row {hidden} elided; "
            f"analysis board {len(an['controls'])} controls"
        )
    finally:
        set_phone(page, False)


# The axe-core that tests/web_install installs from the npm registry
# (axe=PATH, given as --axe): its axe.min.js, injected into every page.
AXE = {"path": None, "source": None, "version": None}

AXE_RUN_JS = """
const done = arguments[arguments.length - 1];
axe.run(document, { resultTypes: ['violations'] })
  .then((r) => done(JSON.stringify({ version: axe.version, violations: r.violations })))
  .catch((e) => done(JSON.stringify({ error: String(e && e.stack || e) })));
"""

# Besides axe-core's own scrollable-region-focusable (serious), checked
# here too, by the page's layout alone: every element that scrolls holds
# the focus itself or has something focusable inside, so that a keyboard
# can scroll it.
SCROLLABLE_JS = """
const bad = [];
for (const e of document.querySelectorAll('body *')) {
  const st = getComputedStyle(e);
  const scrolls = (e.scrollHeight > e.clientHeight + 1 && /auto|scroll/.test(st.overflowY))
    || (e.scrollWidth > e.clientWidth + 1 && /auto|scroll/.test(st.overflowX));
  if (!scrolls || e.offsetParent === null) continue;
  const focusable = 'a[href], button, input, select, textarea, summary, [tabindex]';
  if (e.tabIndex >= 0 && e.matches(focusable)) continue;
  if (Array.from(e.querySelectorAll(focusable)).some((c) => c.tabIndex >= 0 && !c.disabled)) continue;
  bad.push(e.id ? '#' + e.id : e.tagName.toLowerCase() + '.' + e.className);
}
return bad;
"""

# Violations of lesser impact (minor, moderate) seen, by rule: reported in
# the axe scenario's line, not failed.
AXE_LESSER = {}


def run_axe(page, where):
    """axe-core on the page as it is: no serious or critical violation; and
    no region that scrolls without being reachable from the keyboard."""
    unreachable = page.js(SCROLLABLE_JS)
    assert not unreachable, f"{where}: scrollable regions a keyboard cannot reach (scrollable-region-focusable): {unreachable}"

    assert AXE["path"], "no axe-core: give --axe PATH (tests/web_install prints axe=PATH)"
    if AXE["source"] is None:
        with open(AXE["path"], encoding="utf-8") as f:
            AXE["source"] = f.read()
    if not page.js("return typeof window.axe !== 'undefined'"):
        page.js(AXE["source"])
    res = json.loads(page.driver.execute_async_script(AXE_RUN_JS))
    assert "error" not in res, f"axe-core, {where}: axe.run failed: {res['error']}"
    AXE["version"] = res["version"]
    bad = []
    for v in res["violations"]:
        targets = [n["target"] for n in v["nodes"]][:5]
        if v.get("impact") in ("serious", "critical"):
            bad.append((v["id"], v["impact"], targets))
        else:
            AXE_LESSER.setdefault(f"{v['id']} ({v.get('impact')})", []).append((where, targets))
    assert not bad, f"axe-core {res['version']}, {where}: {bad}"
    return len(res["violations"])


# A row the first player wins in at least 17 plies, short enough to be drawn
# whole on a phone: a game long enough that #moves scrolls at 390 × 844.
AXE_LONG_ROW = [4, 4, 4, 4, 4, 5]

MOVES_JS = """
const m = document.getElementById('moves');
return [m.scrollHeight, m.clientHeight, m.tabIndex];
"""


def axe_states(page, where):
    """axe-core in every state of the page at the current size: loaded,
    the analysis board without a game and a bad address, a game with hints
    and the resign confirmation, stones selected, a refused move (an
    error), a game resigned (lost), a long game won (whose #moves scrolls on
    a phone), the analysis board after a game. Returns (states, other
    violations, #moves' scroll and client heights)."""
    states = other = 0

    def axe(what):
        nonlocal states, other
        other += run_axe(page, f"{where}, {what}")
        states += 1

    page.fresh()
    axe("the page as loaded")
    page.driver.get(page.url + "#/analyze?row=3,1,4,1,5&variant=two-ends")
    wait_analysis(page, (3, 1, 4, 1, 5), TWO_ENDS)
    axe("the analysis board without a game")
    page.driver.get(page.url + "#/analyze?row=3,x")
    page.wait_js("the bad-row message", "return document.getElementById('verdict').className === 'error'")
    axe("a bad analysis address")
    row = [3, 1, 4, 1, 5]
    game = Game(row, TWO_ENDS)
    page.open()
    page.start(row, TWO_ENDS, "first")
    wait_start(page, game, "first")
    page.hints(game)
    page.click("resign")
    page.wait_for("the resign confirmation", lambda s: s if s.confirm else None)
    axe("a game with hints and the resign confirmation")
    page.click("resign-no")
    side, take = game.legal_moves()[0]
    stone_at(page, side, take).click()
    expect_picked(page, game, side, take, f"{where}: a selection")
    axe("a game with stones selected")
    key(page, Keys.ESCAPE)
    page.take("L", game.piles[0][1] + 1)
    page.wait_for("#status to report the refused move", lambda s: s if "error" in s.status_class else None)
    axe("a refused move")
    page.click("resign")
    page.wait_for("the resign confirmation", lambda s: s if s.confirm else None)
    page.click("resign-yes")
    page.wait_for("`you lost` after resigning", lambda s: s if s.says("you lost") else None)
    axe("a game lost")
    game = Game(AXE_LONG_ROW, TWO_ENDS)
    assert game.mover_wins() and game.remoteness() >= 17
    page.start(AXE_LONG_ROW, TWO_ENDS, "first")
    wait_start(page, game, "first")
    s = play_hints_to_end(page, game)
    assert s.says("you won"), f"{where}: the long game on the hints was not won: {s}"
    scroll_h, client_h, tab_index = page.js(MOVES_JS)
    assert tab_index == 0, f"{where}: #moves is not focusable (tabIndex {tab_index})"
    axe(f"a game won in {game.plies} plies (#moves {scroll_h} px in {client_h})")
    page.driver.get(page.url + "#/analyze?row=2,3&variant=leftmost")
    wait_analysis(page, (2, 3), LEFTMOST)
    assert page.driver.find_element(By.ID, "an-game").is_displayed(), f"{where}: no `Back to the game` after a game"
    axe("the analysis board after a game")
    return states, other, (scroll_h, client_h)


def scenario_axe(page):
    """axe-core finds no serious or critical violation in any state
    (axe_states), at 1280 × 1100 and at 390 × 844; on the phone the move
    list of the long game overflows (and is focusable, so it can be
    scrolled from the keyboard)."""
    states, other, _ = axe_states(page, "1280 px")
    set_phone(page, True)
    try:
        n, o, (scroll_h, client_h) = axe_states(page, "390 × 844")
        assert scroll_h > client_h, f"390 × 844: #moves does not overflow ({scroll_h} px in {client_h}): test it where it does"
    finally:
        set_phone(page, False)
    lesser = "; ".join(f"{rule} in {len(seen)} states, e.g. {seen[0]}" for rule, seen in sorted(AXE_LESSER.items()))
    return (
        f"axe-core {AXE['version']}: no serious or critical violation in {states} + {n} states at both sizes "
        f"({other + o} minor or moderate{': ' + lesser if lesser else ''}); #moves {scroll_h} px in {client_h} on the phone"
    )


ANALYSIS_JS = """
const q = (s) => document.querySelector(s);
const text = (e) => (e ? (e.innerText || e.textContent || '').trim() : null);
return JSON.stringify({
  hash: location.hash,
  visible: !q('#analysis').hidden && q('#game').hidden,
  verdict: text(q('#verdict')),
  verdictClass: q('#verdict').className,
  last: text(q('#an-last')),
  ranges: Array.from(document.querySelectorAll('#ranges li.range')).map((li) => ({
    win: li.classList.contains('win'),
    head: text(li.querySelector('.range-head')),
    moves: Array.from(li.querySelectorAll('button.move'))
      .map((b) => [b.dataset.side, b.dataset.take, text(b)]),
  })),
  piles: Array.from(document.querySelectorAll('#an-board .pile')).map((e) => e.dataset.size),
  step: !q('#bot-step').disabled,
  variant: q('#an-variant').hidden ? null : text(q('#an-variant')),
  back: !q('#an-game').hidden,
});
"""

VERDICT_RE = re.compile(r"the player to move (wins|loses) in (\d+) (?:ply|plies) with perfect play")


def analysis_state(page):
    return json.loads(page.js(ANALYSIS_JS))


def hash_row(hash_):
    m = re.search(r"[?&]row=([^&]*)", hash_)
    return tuple(int(w) for w in m.group(1).split(",") if w) if m else None


def wait_analysis(page, row, variant):
    """Waits for the board at `row` and checks it against the solver: the
    verdict with its remoteness, every legal move exactly once, grouped
    into ranges of one outcome each, with a remoteness linear in the stones
    left, best first. Returns the state."""
    row = tuple(row)

    def ready(_):
        a = analysis_state(page)
        return a if a["visible"] and hash_row(a["hash"]) == row and VERDICT_RE.search(a["verdict"] or "") and a["ranges"] else None

    try:
        a = WebDriverWait(page.driver, WAIT, poll_frequency=POLL).until(lambda d: ready(d))
    except TimeoutException:
        raise AssertionError(f"timed out waiting for the analysis of {row}: {analysis_state(page)}") from None
    r = remoteness(row, variant)
    m = VERDICT_RE.search(a["verdict"])
    assert (m.group(1), int(m.group(2))) == ("wins" if r % 2 else "loses", r), (
        f"verdict {a['verdict']!r} on {row}; the solver: remoteness {r}"
    )
    unit = "ply" if r == 1 else "plies"
    assert f"in {r} {unit} " in a["verdict"], f"verdict {a['verdict']!r}: not `{r} {unit}`"
    assert (a["variant"] or "").startswith(f"variant: {variant}"), (
        f"the board does not name its variant {variant}: #an-variant says {a['variant']!r}"
    )
    check_units(page, f"the analysis of {row}")
    assert a["piles"] == [str(x) for x in row], f"the board shows {a['piles']}, the address {row}"
    assert a["verdictClass"] == ("win" if r % 2 else "loss"), f"verdict class {a['verdictClass']}"
    g = Game(list(row), variant)
    legal = {normalize(g, s_, t) for s_, t in g.legal_moves()}
    seen = []
    keys = []
    for rng in a["ranges"]:
        pts = []
        for side, take, text in rng["moves"]:
            take = int(take)
            after = _apply_sizes(row, side, take)
            ra = remoteness(after, variant)
            want = f"{side} {take}: {move_outcome(ra)}"
            assert text == want, f"move button {text!r} on {row}; the solver: {want!r}"
            assert (ra % 2 == 0) == rng["win"], f"range {rng['head']!r} mixes outcomes: {text}"
            left = (row[0] if side == "L" else row[-1]) - take
            pts.append((left, ra))
            seen.append(normalize(g, side, take))
        assert pts, f"an empty range: {rng}"
        # Linear in the stones left, and listed best first.
        if len(pts) >= 3:
            (x0, y0), (x1, y1) = pts[0], pts[1]
            for x, y in pts[2:]:
                assert (y - y0) * (x1 - x0) == (y1 - y0) * (x - x0), f"range {rng['head']!r} is not linear: {pts}"
        key_of = lambda p: (0, p[1]) if rng["win"] else (1, -p[1])
        assert [key_of(p) for p in pts] == sorted(key_of(p) for p in pts), f"range {rng['head']!r} not best first: {pts}"
        keys.append(key_of(pts[0]))
    assert sorted(seen) == sorted(legal) and len(seen) == len(legal), (
        f"the moves listed on {row} are not the legal moves once each: {sorted(seen)} vs {sorted(legal)}"
    )
    assert keys == sorted(keys), f"the ranges on {row} are not best first: {keys}"
    return a


def scenario_analysis(page):
    """The analysis board from its address: verdict and grouped moves as
    the solver has them; a click on a move goes there, back comes back; the
    leftmost variant; bad addresses say what is wrong; a game's position
    links to it."""
    # A fresh tab: no game, so no `Back to the game`.
    row, variant = (3, 1, 4, 1, 5), TWO_ENDS
    page.fresh("#/analyze?row=3,1,4,1,5&variant=two-ends")
    a = wait_analysis(page, row, variant)
    ranges = a["ranges"]
    assert not a["back"], f"`Back to the game` offered with no game: {a}"
    # A move of the second range (or the first): click it.
    rng = a["ranges"][1] if len(a["ranges"]) > 1 else a["ranges"][0]
    side, take, _ = rng["moves"][0]
    page.driver.find_element(By.CSS_SELECTOR, f'#ranges button.move[data-side="{side}"][data-take="{take}"]').click()
    after = _apply_sizes(row, side, int(take))
    wait_analysis(page, after, variant)
    page.driver.back()
    wait_analysis(page, row, variant)
    # The leftmost variant: left moves only.
    page.driver.get(page.url + "#/analyze?row=3,2,2,1,3&variant=leftmost")
    wait_analysis(page, (3, 2, 2, 1, 3), LEFTMOST)
    # Bad addresses: a clear message, never a blank page.
    for bad, words in (
        ("#/analyze?row=3,x,4", "not a whole number"),
        ("#/analyze?row=3,0,4", "is 0"),
        ("#/analyze?variant=two-ends", "no row"),
        ("#/analyze?row=1,2&variant=sideways", "variant"),
    ):
        page.driver.get(page.url + bad)
        got = page.wait_js(
            f"the message for {bad}",
            "const v = document.getElementById('verdict');"
            "return !document.getElementById('analysis').hidden && v.className === 'error' && v.textContent.includes(arguments[0]) ? v.textContent : null",
            words,
        )
    # From a game: its position's link.
    game = Game([3, 1, 4, 1, 5], TWO_ENDS)
    page.open()
    page.start(game.sizes(), TWO_ENDS, "first")
    wait_start(page, game, "first")
    moves = page.hints(game)
    play_turn(page, game, *moves[0])
    page.click("analyze-link")
    a = wait_analysis(page, game.sizes(), TWO_ENDS)
    assert a["back"], f"no `Back to the game` during a game: {a}"
    page.driver.back()
    s = page.wait_for("the game again after back", lambda s: s if s.says("your move") and s.piles == game.piles else None)
    check_page(s, game)
    # The link goes back to the game.
    page.click("analyze-link")
    wait_analysis(page, game.sizes(), TWO_ENDS)
    page.click("an-game")
    s = page.wait_for("the game after `Back to the game`", lambda s: s if s.says("your move") and s.piles == game.piles else None)
    check_page(s, game)
    return (
        f"{len(ranges)} ranges on {row}, variant named, click and back, leftmost, 4 bad addresses, "
        "no `Back to the game` without a game, a game's link and back to it"
    )


def scenario_botbot(page):
    """Bot against bot on the analysis board, one step per click: every
    step is a perfect move (the solver's remoteness drops by one) with the
    tempo bot's tie-break, and the game lasts exactly the remoteness of the
    start."""
    row, variant = (2, 3, 1, 4, 2), TWO_ENDS
    page.open()
    page.driver.get(page.url + "#/analyze?row=2,3,1,4,2&variant=two-ends")
    wait_analysis(page, row, variant)
    start = remoteness(row, variant)
    steps = 0
    while row:
        page.click("bot-step")
        steps += 1
        assert steps <= start, f"more steps than the remoteness {start}"
        a = page.wait_js(
            "the position after the bot's step",
            "const h = location.hash; return h.includes('row=') && h !== arguments[0] ? h : null",
            f"#/analyze?row={','.join(map(str, row))}&variant={variant}",
        )
        nxt = hash_row(a)
        g = Game(list(row), variant)
        children = {}
        for s_, t in g.legal_moves():
            children.setdefault(_apply_sizes(row, s_, t), []).append((s_, t))
        assert nxt in children, f"{nxt} is not a position after one move from {row}"
        assert remoteness(nxt, variant) == remoteness(row, variant) - 1, (
            f"the bot's step {children[nxt]} on {row} is not perfect: remoteness {remoteness(row, variant)} -> {remoteness(nxt, variant)}"
        )
        # The tempo bot's tie-break (docs/game.md §5): the left end first,
        # then the move that leaves more stones.
        perfect = [
            (s_, t) for s_, t in g.legal_moves()
            if remoteness(_apply_sizes(row, s_, t), variant) == remoteness(row, variant) - 1
        ]
        want = min(perfect, key=lambda m: (m[0] != "L", m[1]))
        assert _apply_sizes(row, *want) == nxt, f"the bot played to {nxt} on {row}; the tie-break picks {want}"
        if nxt:
            st = wait_analysis(page, nxt, variant)
            said = [f"the bot played {side} {take}" for side, take in children[nxt]]
            assert any(w in (st["last"] or "") for w in said), f"#an-last says {st['last']!r}, not {said[0]!r}"
        row = nxt
    page.wait_js(
        "the end of the game on the board",
        "return document.getElementById('verdict').textContent.includes('no stones left')",
    )
    assert steps == start, f"the bots played {steps} plies, the remoteness was {start}"
    return f"{steps} perfect plies = the remoteness of (2, 3, 1, 4, 2)"


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
    run_axe(page, "the server stopped")
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
    parser.add_argument("--only", help="run only these scenarios (comma-separated names)")
    parser.add_argument("--axe", help="axe-core's axe.min.js (tests/web_install prints axe=PATH)")
    parser.add_argument(
        "--require-game-remoteness",
        action="store_true",
        help="fail when a game's status or move list shows no remoteness (a server that fills them)",
    )
    args = parser.parse_args()
    REQUIRE_GAME_REMOTENESS[0] = args.require_game_remoteness
    AXE["path"] = args.axe

    if args.expect_down:
        scenarios = [("server_down", scenario_server_down)]
    else:
        scenarios = [
            ("won", lambda p: scenario_won(p, args.screenshot)),
            ("blunder", scenario_blunder),
            ("illegal", scenario_illegal),
            ("reload", scenario_reload),
            ("remoteness", scenario_remoteness),
            ("keyboard", scenario_keyboard),
            ("pick", scenario_pick),
            ("long_row", scenario_long_row),
            ("phone", scenario_phone),
            ("axe", scenario_axe),
            ("analysis", scenario_analysis),
            ("botbot", scenario_botbot),
        ]
        if args.only:
            names = args.only.split(",")
            scenarios = [(n, f) for n, f in scenarios if n in names]

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
