// The page: wires the form, the board and the move list to the server's
// PlayStep and SuggestMove calls.

import { create } from "@bufbuild/protobuf";
import { callOptions, describeError, makeClient } from "./api";
import {
  type Game,
  type PlayedEntry,
  type Position,
  type SeatName,
  type VariantName,
  describeMove,
  deserializeGame,
  endingFromPosition,
  endingText,
  isHumanTurn,
  isOver,
  liveCount,
  liveRow,
  moveText,
  parseRow,
  parseTake,
  randomRow,
  seatOf,
  serializeGame,
  shortSize,
  sizeAt,
} from "./game";
import {
  type GameState,
  type PlayStepRequest,
  PlayStepRequestSchema,
  Seat,
  Side,
  StartGameSchema,
  SuggestMoveRequestSchema,
  TurnSchema,
  Variant,
} from "./gen/stonegame/v1/stonegame_pb";

// ---- elements --------------------------------------------------------------

function $<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el as T;
}

const rowInput = $<HTMLInputElement>("row");
const randomN = $<HTMLInputElement>("random-n");
const randomBtn = $<HTMLButtonElement>("random");
const variantSel = $<HTMLSelectElement>("variant");
const seatSel = $<HTMLSelectElement>("seat");
const strengthInput = $<HTMLInputElement>("strength");
const startBtn = $<HTMLButtonElement>("start");
const tokenInput = $<HTMLInputElement>("token");
const statusEl = $<HTMLElement>("status");
const board = $<HTMLElement>("board");
const takeInput = $<HTMLInputElement>("take");
const takeLeft = $<HTMLButtonElement>("take-left");
const takeRight = $<HTMLButtonElement>("take-right");
const hintBtn = $<HTMLButtonElement>("hint");
const resignBtn = $<HTMLButtonElement>("resign");
const hintsEl = $<HTMLElement>("hints");
const movesEl = $<HTMLOListElement>("moves");

// ---- storage ---------------------------------------------------------------

const KEY_TOKEN = "stonegame.token";
const KEY_FORM = "stonegame.form";
const KEY_GAME = "stonegame.game";

function store(key: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch {
    // Storage full or disabled: the game goes on, a reload just loses it.
  }
}

function load(key: string): string | null {
  try {
    return sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

function saveForm(): void {
  store(
    KEY_FORM,
    JSON.stringify({
      row: rowInput.value,
      n: randomN.value,
      variant: variantSel.value,
      seat: seatSel.value,
      strength: strengthInput.value,
    }),
  );
}

function restoreForm(): void {
  const text = load(KEY_FORM);
  if (!text) return;
  try {
    const f = JSON.parse(text) as Record<string, string>;
    if (typeof f.row === "string") rowInput.value = f.row;
    if (typeof f.n === "string") randomN.value = f.n;
    if (f.variant === "two-ends" || f.variant === "leftmost") variantSel.value = f.variant;
    if (f.seat === "first" || f.seat === "second") seatSel.value = f.seat;
    if (typeof f.strength === "string") strengthInput.value = f.strength;
  } catch {
    // ignore a damaged entry
  }
}

/** A token in the URL (`#token=…` or `?token=…`) is taken and removed from the address. */
function takeTokenFromUrl(): void {
  const url = new URL(window.location.href);
  const fromHash = new URLSearchParams(url.hash.replace(/^#/, "")).get("token");
  const fromQuery = url.searchParams.get("token");
  const token = fromHash ?? fromQuery;
  if (token === null) return;
  store(KEY_TOKEN, token);
  url.hash = "";
  url.searchParams.delete("token");
  try {
    history.replaceState(null, "", url.pathname + url.search);
  } catch {
    // file:// and the like: keep the address as it is
  }
}

// ---- state -----------------------------------------------------------------

const client = makeClient();
let game: Game | null = null;
/** The PlayStep or SuggestMove call running, if any. */
let running: AbortController | null = null;
/** Bumped by every new call, so that the events of an abandoned one are ignored. */
let generation = 0;

function setStatus(text: string, kind: "info" | "error" | "end" = "info"): void {
  statusEl.textContent = text;
  statusEl.className = kind;
}

function turnStatus(g: Game): string {
  if (isOver(g)) return endingText(g.over ?? endingFromPosition(g), seatOf(g.seat));
  if (isHumanTurn(g)) return "your move";
  return "waiting for the bot: make any move request to continue";
}

function updateControls(): void {
  const busy = running !== null;
  const myTurn = game !== null && isHumanTurn(game) && !busy;
  takeLeft.disabled = !myTurn;
  takeRight.disabled = !myTurn || game?.variant === "leftmost";
  hintBtn.disabled = !myTurn;
  resignBtn.disabled = !myTurn;
  document.body.classList.toggle("busy", busy);
}

// ---- drawing ---------------------------------------------------------------

/** Piles drawn at each end of a long row; the middle becomes an ellipsis. */
const END_WINDOW = 60;
/** Up to this many live piles are drawn in one window; more are split in two. */
const FIT_WIDE = 18;
/** Stones drawn in the tallest stack; larger piles are capped. */
const MAX_STONES = 12;

function pileElement(g: Game, index: number, size: bigint, end: "left" | "right" | "both" | null): HTMLElement {
  const pile = document.createElement("div");
  pile.className = "pile";
  pile.dataset.index = String(index);
  pile.dataset.size = size.toString();
  pile.title = `pile ${index + 1}: ${size} stone${size === 1n ? "" : "s"}`;
  const stack = document.createElement("div");
  stack.className = "stack";
  const capped = size > BigInt(MAX_STONES);
  const shown = capped ? MAX_STONES : Number(size);
  if (capped) stack.classList.add("capped");
  const clickable = end !== null && running === null && isHumanTurn(g);
  for (let k = shown; k >= 1; k--) {
    // Stone k counted from the bottom; taking it takes every stone above it.
    const stone = document.createElement("span");
    stone.className = "stone";
    if (clickable) {
      const take = capped ? takeForCapped(size, k) : size - BigInt(k) + 1n;
      stone.dataset.take = take.toString();
      stone.title = `take ${take}`;
    }
    stack.append(stone);
  }
  const label = document.createElement("div");
  label.className = "count";
  label.textContent = shortSize(size);
  pile.append(stack, label);
  if (end !== null) pile.classList.add("end");
  if (end === "left" || end === "both") pile.classList.add("end-left");
  if (end === "right" || end === "both") pile.classList.add("end-right");
  if (clickable) pile.classList.add("clickable");
  return pile;
}

/** In a capped stack, stone k of 12 stands for a share of the pile: the top one is 1 stone. */
function takeForCapped(size: bigint, k: number): bigint {
  if (k === MAX_STONES) return 1n;
  if (k === 1) return size;
  const t = (size * BigInt(MAX_STONES - k + 1)) / BigInt(MAX_STONES);
  return t < 1n ? 1n : t;
}

function gapElement(hidden: number): HTMLElement {
  const gap = document.createElement("div");
  gap.className = "gap";
  gap.textContent = `… ${hidden.toLocaleString("en-US")} more piles …`;
  return gap;
}

function drawBoard(): void {
  board.replaceChildren();
  const g = game;
  if (!g) return;
  const p = g.pos;
  const n = liveCount(p);
  if (n === 0) {
    const empty = document.createElement("div");
    empty.className = "empty";
    empty.textContent = "no stones left";
    board.append(empty);
    return;
  }
  const endOf = (i: number): "left" | "right" | "both" | null => {
    if (p.firstPile === p.lastPile) return "both";
    if (i === p.firstPile) return "left";
    if (i === p.lastPile && g.variant === "two-ends") return "right";
    return null;
  };
  const pileAt = (i: number) => pileElement(g, i, sizeAt(g.row, p, i), endOf(i));
  if (n <= FIT_WIDE) {
    const all = windowElement("all");
    for (let i = p.firstPile; i <= p.lastPile; i++) all.append(pileAt(i));
    board.append(all);
    return;
  }
  // Two windows, each scrolling on its own, so both end piles stay in view.
  const shown = Math.min(n, 2 * END_WINDOW);
  const leftCount = Math.ceil(shown / 2);
  const rightCount = shown - leftCount;
  const left = windowElement("left");
  const right = windowElement("right");
  for (let i = p.firstPile; i < p.firstPile + leftCount; i++) left.append(pileAt(i));
  for (let i = p.lastPile - rightCount + 1; i <= p.lastPile; i++) right.append(pileAt(i));
  board.append(left);
  if (n > shown) board.append(gapElement(n - shown));
  board.append(right);
  left.scrollLeft = 0;
  right.scrollLeft = right.scrollWidth;
}

function windowElement(which: "all" | "left" | "right"): HTMLElement {
  const w = document.createElement("div");
  w.className = `window ${which}`;
  return w;
}

function moveItem(e: PlayedEntry, human: Seat): HTMLLIElement {
  const li = document.createElement("li");
  li.textContent = moveText(e, human);
  li.classList.add(e.by === human ? "you" : "bot");
  if (e.blunder) li.classList.add("blunder");
  return li;
}

function drawMoves(): void {
  movesEl.replaceChildren();
  if (!game) return;
  const human = seatOf(game.seat);
  const frag = document.createDocumentFragment();
  for (const m of game.moves) frag.append(moveItem(m, human));
  movesEl.append(frag);
}

function redraw(): void {
  drawBoard();
  drawMoves();
  updateControls();
}

// ---- applying server events ------------------------------------------------

function positionOf(s: GameState): Position {
  return {
    ply: s.ply,
    toMove: s.toMove,
    firstPile: Number(s.firstPile),
    lastPile: Number(s.lastPile),
    leftSize: s.leftSize,
    rightSize: s.rightSize,
    moverWins: s.moverWins,
    token: s.stateToken,
  };
}

function applyState(g: Game, s: GameState): void {
  const lm = s.lastMove;
  if (lm && lm.move && Number(s.ply) > g.moves.length) {
    const entry: PlayedEntry = {
      n: Number(s.ply),
      by: lm.by,
      side: lm.move.side,
      take: lm.move.take,
      remaining: lm.move.remaining,
      blunder: lm.blunder,
    };
    g.moves.push(entry);
    movesEl.append(moveItem(entry, seatOf(g.seat)));
    movesEl.lastElementChild?.scrollIntoView({ block: "nearest" });
  }
  g.pos = positionOf(s);
  drawBoard();
}

/** Keeps the game for a reload; only between calls, when the token is one to move on. */
function persist(): void {
  if (game) store(KEY_GAME, serializeGame(game));
  else store(KEY_GAME, null);
}

/** Runs one PlayStep call and applies its events to `g`. */
async function playStep(g: Game, req: PlayStepRequest, isStart: boolean): Promise<void> {
  running?.abort();
  // The position to go back to when the call fails half-way: the server
  // keeps no session, so its token can be sent again.
  const before = isStart ? null : deserializeGame(serializeGame(g));
  const ctl = new AbortController();
  running = ctl;
  const my = ++generation;
  hintsEl.replaceChildren();
  setStatus("bot is thinking…");
  updateControls();
  let rejected: string | null = null;
  try {
    for await (const ev of client.playStep(req, callOptions(tokenInput.value, ctl.signal))) {
      if (my !== generation) return;
      switch (ev.event.case) {
        case "state":
          applyState(g, ev.event.value);
          if (!isOver(g) && !isHumanTurn(g)) setStatus("bot is thinking…");
          break;
        case "rejected":
          rejected = ev.event.value.message || "the server refused the move";
          break;
        case "over":
          g.over = { winner: ev.event.value.winner, reason: ev.event.value.reason };
          break;
      }
    }
    if (my !== generation) return;
    if (isOver(g) && !g.over) g.over = endingFromPosition(g);
    persist();
    if (rejected !== null) {
      setStatus(`move rejected: ${rejected}; still your move`, "error");
    } else {
      setStatus(turnStatus(g), isOver(g) ? "end" : "info");
    }
  } catch (e) {
    if (my !== generation) return;
    game = before;
    running = null;
    drawMoves();
    setStatus(game ? `${describeError(e)}; ${turnStatus(game)}` : describeError(e), "error");
  } finally {
    if (my === generation) {
      running = null;
      drawBoard();
      updateControls();
    }
  }
}

// ---- actions ---------------------------------------------------------------

function startGame(): void {
  let row: bigint[];
  try {
    row = parseRow(rowInput.value);
  } catch (e) {
    setStatus(`cannot start: ${(e as Error).message}`, "error");
    return;
  }
  const variant: VariantName = variantSel.value === "leftmost" ? "leftmost" : "two-ends";
  const seat: SeatName = seatSel.value === "second" ? "second" : "first";
  let strength = Number(strengthInput.value);
  if (!Number.isFinite(strength) || strengthInput.value.trim() === "") strength = 1;
  strength = Math.min(1, Math.max(0, strength));
  saveForm();
  const g: Game = {
    row,
    variant,
    seat,
    strength,
    pos: {
      ply: 0n,
      toMove: Seat.FIRST,
      firstPile: 0,
      lastPile: row.length - 1,
      leftSize: row[0],
      rightSize: row[row.length - 1],
      moverWins: false,
      token: new Uint8Array(0),
    },
    moves: [],
    over: null,
  };
  game = g;
  // Until the server answers there is no game to come back to.
  store(KEY_GAME, null);
  takeInput.value = "1";
  redraw();
  const seed = crypto.getRandomValues(new BigUint64Array(1))[0];
  const req = create(PlayStepRequestSchema, {
    step: {
      case: "start",
      value: create(StartGameSchema, {
        piles: row,
        variant: variant === "leftmost" ? Variant.LEFTMOST : Variant.TWO_ENDS,
        clientSeat: seatOf(seat),
        strength,
        seed,
        analysis: true,
      }),
    },
  });
  void playStep(g, req, true);
}

function sendMove(side: Side): void {
  const g = game;
  if (!g || running || !isHumanTurn(g)) return;
  if (side === Side.RIGHT && g.variant === "leftmost") return;
  let take: bigint;
  try {
    take = parseTake(takeInput.value);
  } catch (e) {
    setStatus(`${(e as Error).message}; your move`, "error");
    return;
  }
  const req = create(PlayStepRequestSchema, {
    step: {
      case: "turn",
      value: create(TurnSchema, {
        stateToken: g.pos.token,
        piles: g.row,
        action: { case: "move", value: { ply: g.pos.ply, move: { side, take } } },
      }),
    },
  });
  void playStep(g, req, false);
}

function resign(): void {
  const g = game;
  if (!g || running || !isHumanTurn(g)) return;
  const req = create(PlayStepRequestSchema, {
    step: {
      case: "turn",
      value: create(TurnSchema, {
        stateToken: g.pos.token,
        piles: g.row,
        action: { case: "resign", value: {} },
      }),
    },
  });
  void playStep(g, req, false);
}

async function hint(): Promise<void> {
  const g = game;
  if (!g || running || !isHumanTurn(g)) return;
  const ctl = new AbortController();
  running = ctl;
  const my = ++generation;
  updateControls();
  hintsEl.textContent = "thinking…";
  try {
    const res = await client.suggestMove(
      create(SuggestMoveRequestSchema, {
        piles: liveRow(g.row, g.pos),
        variant: g.variant === "leftmost" ? Variant.LEFTMOST : Variant.TWO_ENDS,
      }),
      callOptions(tokenInput.value, ctl.signal),
    );
    if (my !== generation) return;
    if (res.winningMoves.length === 0) {
      hintsEl.textContent = "every move loses";
    } else {
      const list = res.winningMoves.map((m) => describeMove(m.side, m.take));
      hintsEl.textContent = `winning move${list.length === 1 ? "" : "s"}: ${list.join(", ")}`;
    }
    setStatus("your move");
  } catch (e) {
    if (my !== generation) return;
    hintsEl.replaceChildren();
    setStatus(`${describeError(e)}; your move`, "error");
  } finally {
    if (my === generation) {
      running = null;
      updateControls();
    }
  }
}

function randomFill(): void {
  const n = Number(randomN.value);
  const row = randomRow(Number.isFinite(n) ? n : 8, () => {
    const b = crypto.getRandomValues(new Uint32Array(1));
    return b[0] / 4294967296;
  });
  rowInput.value = row.join(" ");
  saveForm();
}

// ---- events ----------------------------------------------------------------

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !["button", "checkbox", "radio", "submit", "reset", "range"].includes(target.type);
  }
  return target.isContentEditable;
}

function wire(): void {
  startBtn.addEventListener("click", startGame);
  randomBtn.addEventListener("click", randomFill);
  takeLeft.addEventListener("click", () => sendMove(Side.LEFT));
  takeRight.addEventListener("click", () => sendMove(Side.RIGHT));
  resignBtn.addEventListener("click", resign);
  hintBtn.addEventListener("click", () => void hint());
  for (const el of [rowInput, randomN, variantSel, seatSel, strengthInput]) {
    el.addEventListener("change", saveForm);
  }
  rowInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter") startGame();
  });
  takeInput.addEventListener("keydown", (e) => {
    // Enter in the take box: take from the left (the one end every variant has).
    if (e.key === "Enter") sendMove(Side.LEFT);
  });
  tokenInput.addEventListener("input", () => store(KEY_TOKEN, tokenInput.value === "" ? null : tokenInput.value));
  board.addEventListener("click", (e) => {
    const stone = (e.target as HTMLElement).closest<HTMLElement>(".stone[data-take]");
    if (!stone || !game || running || !isHumanTurn(game)) return;
    const pile = stone.closest<HTMLElement>(".pile");
    takeInput.value = stone.dataset.take ?? "1";
    if (pile?.classList.contains("end-left")) sendMove(Side.LEFT);
    else if (pile?.classList.contains("end-right")) sendMove(Side.RIGHT);
  });
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    if (e.key === "ArrowLeft" || e.key === "l" || e.key === "L") {
      e.preventDefault();
      sendMove(Side.LEFT);
    } else if (e.key === "ArrowRight" || e.key === "r" || e.key === "R") {
      e.preventDefault();
      sendMove(Side.RIGHT);
    }
  });
}

function init(): void {
  takeTokenFromUrl();
  tokenInput.value = load(KEY_TOKEN) ?? "";
  restoreForm();
  wire();
  game = deserializeGame(load(KEY_GAME));
  if (game) {
    variantSel.value = game.variant;
    seatSel.value = game.seat;
    strengthInput.value = String(game.strength);
    if (isOver(game) && !game.over) game.over = endingFromPosition(game);
    redraw();
    setStatus(turnStatus(game), isOver(game) ? "end" : "info");
  } else {
    updateControls();
  }
}

init();
