// The page: wires the form, the board and the move list to the server's
// PlayStep and SuggestMove calls.

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type AnalyzeRoute,
  analyzeHash,
  applyMove,
  isAnalyzeHash,
  parseAnalyzeHash,
  rangeBest,
  rangeMoves,
  rangeSize,
  remAt,
} from "./analysis";
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
  moveOutcome,
  moveOutcomePlies,
  moveText,
  parseRow,
  parseTake,
  perfectPlayText,
  plies,
  randomRow,
  seatOf,
  serializeGame,
  shortSize,
  sizeAt,
  tookText,
} from "./game";
import {
  type GameState,
  type SuggestMoveResponse,
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
const setupSection = $<HTMLElement>("setup");
const gameSection = $<HTMLElement>("game");
const statusEl = $<HTMLElement>("status");
const board = $<HTMLElement>("board");
const takeInput = $<HTMLInputElement>("take");
const takeLeft = $<HTMLButtonElement>("take-left");
const takeRight = $<HTMLButtonElement>("take-right");
const hintBtn = $<HTMLButtonElement>("hint");
const resignBtn = $<HTMLButtonElement>("resign");
const resignConfirm = $<HTMLElement>("resign-confirm");
const resignYes = $<HTMLButtonElement>("resign-yes");
const resignNo = $<HTMLButtonElement>("resign-no");
const analyzeLink = $<HTMLAnchorElement>("analyze-link");
const hintsEl = $<HTMLElement>("hints");
const pickEl = $<HTMLElement>("pick");
const movesEl = $<HTMLOListElement>("moves");
const analysisSection = $<HTMLElement>("analysis");
const verdictEl = $<HTMLElement>("verdict");
const anBoard = $<HTMLElement>("an-board");
const botStepBtn = $<HTMLButtonElement>("bot-step");
const anPlayBtn = $<HTMLButtonElement>("an-play");
const anLastEl = $<HTMLElement>("an-last");
const rangesEl = $<HTMLOListElement>("ranges");
const anVariantEl = $<HTMLElement>("an-variant");
const anGameLink = $<HTMLAnchorElement>("an-game");

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
  if (isAnalyzeHash(url.hash)) return;
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
/** The bot's latest move, marked on the board until the human moves. */
let lastBot: { index: number; side: Side; removed: boolean } | null = null;
/**
 * The stones selected on the board by a first tap (or the keyboard): the
 * end pile (original index) and how many; a second tap on them takes them.
 */
let picked: { index: number; side: Side; take: bigint } | null = null;
/** Piles of the hidden middle shown after clicks on `.elided`, per board. */
const revealed = new Map<HTMLElement, number>();

type StatusKind = "info" | "error" | "won" | "lost";

function setStatus(text: string, kind: StatusKind = "info"): void {
  statusEl.textContent = text;
  statusEl.className = kind === "won" || kind === "lost" ? `end ${kind}` : kind;
}

function endKind(g: Game): StatusKind {
  const over = g.over ?? endingFromPosition(g);
  return over.winner === seatOf(g.seat) ? "won" : "lost";
}

/** The status between calls: the ending, or whose move it is (with the bot's last move and the remoteness). */
function turnStatus(g: Game): string {
  if (isOver(g)) return endingText(g.over ?? endingFromPosition(g), seatOf(g.seat));
  if (isHumanTurn(g)) {
    const last = g.moves[g.moves.length - 1];
    const parts: string[] = [];
    parts.push(
      last && last.by !== seatOf(g.seat) ? `${tookText("bot", last.side, last.take)} — your move` : "your move",
    );
    const rem = perfectPlayText(g.pos.remoteness);
    if (rem) parts.push(rem);
    return parts.join("; ");
  }
  return "waiting for the bot: make any move request to continue";
}

function showTurnStatus(g: Game): void {
  setStatus(turnStatus(g), isOver(g) ? endKind(g) : "info");
}

function updateControls(): void {
  const busy = running !== null;
  const myTurn = game !== null && isHumanTurn(game) && !busy;
  takeLeft.disabled = !myTurn;
  takeRight.disabled = !myTurn || game?.variant === "leftmost";
  hintBtn.disabled = !myTurn;
  resignBtn.disabled = !myTurn;
  if (!myTurn) hideResignConfirm();
  document.body.classList.toggle("busy", busy);
  const g = game;
  const n = g ? liveCount(g.pos) : 0;
  if (g && n > 0 && n <= MAX_LINK_PILES) {
    analyzeLink.href = analyzeHash(liveRow(g.row, g.pos), g.variant);
    analyzeLink.hidden = false;
  } else {
    analyzeLink.hidden = true;
  }
}

/** Rows longer than this get no analysis link (the address would be huge). */
const MAX_LINK_PILES = 5000;

// ---- drawing ---------------------------------------------------------------

/** Stones drawn in the tallest stack; larger piles are capped. */
const MAX_STONES = 12;
/** Piles shown per click on `.elided`. */
const REVEAL_STEP = 200;

type End = "left" | "right" | "both" | null;

function pileElement(index: number, size: bigint, end: End, clickable: boolean): HTMLElement {
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

/** The width a pile takes on the board, estimated from its label (px, with the gap). */
function pileWidth(size: bigint): number {
  return Math.max(44, shortSize(size).length * 8 + 10) + 6;
}

/** The width kept for `.elided`. */
const ELIDED_WIDTH = 150;

/**
 * Draws a row of `count` piles (position k is original index first + k,
 * size sizeOf(k)) into `into`: every pile when they fit on one line,
 * else as many at each end as fit with an `.elided` button between them
 * that says how many piles it hides and shows them when clicked. Nothing
 * is clipped: the line wraps when the estimate is off.
 */
function drawRow(
  into: HTMLElement,
  first: number,
  count: number,
  sizeOf: (k: number) => bigint,
  endOf: (k: number) => End,
  clickable: (k: number) => boolean,
): void {
  const pileAt = (k: number) => pileElement(first + k, sizeOf(k), endOf(k), clickable(k));
  const avail = Math.max(200, into.clientWidth - 16);
  let used = 0;
  let fitsAll = true;
  for (let k = 0; k < count; k++) {
    used += pileWidth(sizeOf(k));
    if (used > avail) {
      fitsAll = false;
      break;
    }
  }
  const extra = revealed.get(into) ?? 0;
  if (fitsAll || count <= 2) {
    for (let k = 0; k < count; k++) into.append(pileAt(k));
    return;
  }
  // Alternate ends, the left one first, while both ends and `.elided` fit.
  let left = 0;
  let right = 0;
  used = ELIDED_WIDTH;
  while (left + right < count - 1) {
    const k = left <= right ? left : count - 1 - right;
    const w = pileWidth(sizeOf(k));
    if (used + w > avail && left > 0 && right > 0) break;
    used += w;
    if (left <= right) left++;
    else right++;
  }
  left = Math.min(count - right, left + extra);
  const hidden = count - left - right;
  for (let k = 0; k < left; k++) into.append(pileAt(k));
  if (hidden > 0) into.append(elidedElement(into, hidden));
  for (let k = count - right; k < count; k++) into.append(pileAt(k));
}

function elidedElement(owner: HTMLElement, hidden: number): HTMLElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "elided";
  b.dataset.hidden = String(hidden);
  const n = hidden.toLocaleString("en-US");
  b.textContent = `… ${n} pile${hidden === 1 ? "" : "s"} …`;
  b.title = hidden > REVEAL_STEP ? `show ${REVEAL_STEP} more of the ${n} hidden piles` : `show the ${n} hidden piles`;
  b.addEventListener("click", () => {
    revealed.set(owner, (revealed.get(owner) ?? 0) + REVEAL_STEP);
    if (owner === board) drawBoard();
    else drawAnalysisBoard();
    // The button is gone with the redraw: the focus goes to the next one, if any.
    owner.querySelector<HTMLElement>(".elided")?.focus({ preventScroll: true });
  });
  return b;
}

function drawBoard(): void {
  board.replaceChildren();
  const g = game;
  if (!g) return;
  const p = g.pos;
  const n = liveCount(p);
  const mark = lastBot;
  if (n === 0) {
    if (mark) board.append(ghostElement(mark.index));
    const empty = document.createElement("div");
    empty.className = "empty";
    empty.textContent = "no stones left";
    board.append(empty);
    return;
  }
  const endOf = (k: number): End => {
    if (n === 1) return "both";
    if (k === 0) return "left";
    if (k === n - 1 && g.variant === "two-ends") return "right";
    return null;
  };
  const canMove = running === null && isHumanTurn(g);
  if (mark?.removed && mark.side === Side.LEFT) board.append(ghostElement(mark.index));
  drawRow(
    board,
    p.firstPile,
    n,
    (k) => sizeAt(g.row, p, p.firstPile + k),
    endOf,
    (k) => canMove && endOf(k) !== null,
  );
  if (mark?.removed && mark.side === Side.RIGHT) board.append(ghostElement(mark.index));
  if (mark && !mark.removed) {
    board.querySelector<HTMLElement>(`.pile[data-index="${mark.index}"]`)?.classList.add("last-move");
  }
  for (const pile of board.querySelectorAll<HTMLElement>(".pile.clickable")) {
    // An end pile is a control: Tab reaches it, ↓/↑ select stones, Enter takes them.
    pile.tabIndex = 0;
    pile.setAttribute("role", "button");
    const where = pile.classList.contains("end-left") ? "left" : "right";
    const size = pile.dataset.size ?? "";
    pile.setAttribute(
      "aria-label",
      `${where} end pile, ${size} stone${size === "1" ? "" : "s"}: arrow down selects stones, Enter takes them`,
    );
  }
  showPick();
}

// ---- selecting stones (two taps) -------------------------------------------

function sideName(side: Side): string {
  return side === Side.RIGHT ? "right" : "left";
}

/** Marks the selection on the board, the take box and `#pick`; clears a selection whose pile is gone. */
function showPick(): void {
  for (const el of board.querySelectorAll(".picked")) el.classList.remove("picked");
  takeLeft.classList.remove("armed");
  takeRight.classList.remove("armed");
  const p = picked;
  const pile = p ? board.querySelector<HTMLElement>(`.pile.clickable[data-index="${p.index}"]`) : null;
  if (!p || !pile) {
    picked = null;
    pickEl.textContent = "";
    return;
  }
  pile.classList.add("picked");
  for (const stone of pile.querySelectorAll<HTMLElement>(".stone[data-take]")) {
    if (BigInt(stone.dataset.take ?? "0") <= p.take) stone.classList.add("picked");
  }
  (p.side === Side.RIGHT ? takeRight : takeLeft).classList.add("armed");
  pickEl.textContent = `selected: take ${p.take} from the ${sideName(p.side)}; tap again (or Enter) to take, Esc to cancel`;
}

function clearPick(): void {
  if (picked === null) return;
  picked = null;
  showPick();
}

function canPick(): boolean {
  return game !== null && running === null && isHumanTurn(game);
}

function pileSide(pile: HTMLElement): Side {
  return pile.classList.contains("end-left") ? Side.LEFT : Side.RIGHT;
}

function pick(pile: HTMLElement, take: bigint): void {
  picked = { index: Number(pile.dataset.index), side: pileSide(pile), take };
  takeInput.value = take.toString();
  showPick();
}

/**
 * A tap on an end pile: on a stone, `stoneTake` (that stone and all above
 * it), elsewhere null (the number in the take box). The first tap selects;
 * a second one on the selection (the same stone, or the pile off its
 * stones) takes it. Never a move in one tap.
 */
function tapPile(pile: HTMLElement, stoneTake: bigint | null): void {
  if (!canPick()) return;
  const p = picked;
  if (p !== null && p.index === Number(pile.dataset.index) && (stoneTake === null || stoneTake === p.take)) {
    takeInput.value = p.take.toString();
    sendMove(p.side);
    return;
  }
  let take = stoneTake;
  if (take === null) {
    const size = BigInt(pile.dataset.size ?? "1");
    try {
      take = parseTake(takeInput.value);
    } catch {
      take = 1n;
    }
    if (take < 1n) take = 1n;
    if (take > size) take = size;
  }
  pick(pile, take);
}

/** ↓/↑ on a focused end pile: one stone more or fewer (the top one first). */
function stepPick(pile: HTMLElement, more: boolean): void {
  if (!canPick()) return;
  // The stones top first: their takes ascend.
  const takes = Array.from(pile.querySelectorAll<HTMLElement>(".stone[data-take]"), (s) => BigInt(s.dataset.take ?? "1"));
  if (takes.length === 0) return;
  const p = picked;
  let at = -1;
  if (p !== null && p.index === Number(pile.dataset.index)) {
    for (let i = 0; i < takes.length; i++) if (takes[i] <= p.take) at = i;
  }
  const next = at < 0 ? 0 : Math.max(0, Math.min(takes.length - 1, at + (more ? 1 : -1)));
  pick(pile, takes[next]);
}

/** Where the bot emptied a pile: an empty place, marked `.last-move`. */
function ghostElement(index: number): HTMLElement {
  const ghost = document.createElement("div");
  ghost.className = "ghost last-move";
  ghost.dataset.index = String(index);
  ghost.title = `pile ${index + 1}: emptied by the bot`;
  const label = document.createElement("div");
  label.className = "count";
  label.textContent = "0";
  ghost.append(label);
  return ghost;
}

function moveItem(e: PlayedEntry, human: Seat): HTMLLIElement {
  const li = document.createElement("li");
  li.textContent = moveText(e, human);
  li.classList.add(e.by === human ? "you" : "bot");
  if (e.blunder) li.classList.add("blunder");
  if (e.remAfter !== null) li.title = `remoteness left: ${plies(e.remAfter)}`;
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

/** Scrolls the status and the board into view when the board is not wholly in it. */
function showBoard(): void {
  if (gameSection.hidden) return;
  const r = board.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) statusEl.scrollIntoView({ block: "start" });
}

// ---- applying server events ------------------------------------------------

function optRem(r: { plies: string } | undefined): bigint | null {
  return r && /^\d+$/.test(r.plies) ? BigInt(r.plies) : null;
}

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
    remoteness: optRem(s.remoteness),
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
      remBefore: optRem(lm.remotenessBefore),
      remAfter: optRem(lm.move.remotenessAfter),
    };
    g.moves.push(entry);
    movesEl.append(moveItem(entry, seatOf(g.seat)));
    movesEl.lastElementChild?.scrollIntoView({ block: "nearest" });
    if (lm.by === seatOf(g.seat)) {
      lastBot = null;
    } else {
      // The pile the bot took from, in the original row.
      const index = lm.move.side === Side.RIGHT ? g.pos.lastPile : g.pos.firstPile;
      lastBot = { index, side: lm.move.side, removed: lm.move.remaining === 0n };
    }
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
  picked = null;
  showPick();
  hintsEl.replaceChildren();
  setStatus("bot is thinking…");
  updateControls();
  let rejected: string | null = null;
  let botMoved = false;
  try {
    for await (const ev of client.playStep(req, callOptions(tokenInput.value, ctl.signal))) {
      if (my !== generation) return;
      switch (ev.event.case) {
        case "state":
          applyState(g, ev.event.value);
          if (ev.event.value.lastMove && ev.event.value.lastMove.by !== seatOf(g.seat)) botMoved = true;
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
      showTurnStatus(g);
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
      if (isStart || botMoved) showBoard();
      keepFocus();
    }
  }
}

/** A control that was disabled while the call ran lost the focus: give it to the take box. */
function keepFocus(): void {
  const a = document.activeElement;
  if (gameSection.hidden) return;
  if (a === null || a === document.body || (a instanceof HTMLButtonElement && a.disabled)) {
    if (game && isHumanTurn(game)) takeInput.focus({ preventScroll: true });
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
      remoteness: null,
    },
    moves: [],
    over: null,
  };
  game = g;
  picked = null;
  lastBot = null;
  revealed.delete(board);
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
  clearPick();
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

function askResign(): void {
  clearPick();
  const g = game;
  if (!g || running || !isHumanTurn(g)) return;
  resignConfirm.hidden = false;
  resignBtn.hidden = true;
  resignNo.focus();
}

function hideResignConfirm(): void {
  const hadFocus = resignConfirm.contains(document.activeElement);
  resignConfirm.hidden = true;
  resignBtn.hidden = false;
  if (hadFocus && !resignBtn.disabled) resignBtn.focus();
}

function resign(): void {
  const g = game;
  hideResignConfirm();
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

/** SuggestMove with the remoteness; without it when the server finds that too costly. */
async function suggest(
  row: bigint[],
  variant: VariantName,
  signal: AbortSignal,
): Promise<{ res: SuggestMoveResponse; remNote: string }> {
  const base = {
    piles: row,
    variant: variant === "leftmost" ? Variant.LEFTMOST : Variant.TWO_ENDS,
    strength: 1,
  };
  try {
    const res = await client.suggestMove(
      create(SuggestMoveRequestSchema, { ...base, wantRemoteness: true }),
      callOptions(tokenInput.value, signal),
    );
    return { res, remNote: "" };
  } catch (e) {
    const err = ConnectError.from(e);
    if (err.code !== Code.ResourceExhausted || !/remoteness/i.test(err.rawMessage)) throw e;
    const res = await client.suggestMove(create(SuggestMoveRequestSchema, base), callOptions(tokenInput.value, signal));
    return { res, remNote: "remoteness not shown: too costly for this server on a row this long" };
  }
}

async function hint(): Promise<void> {
  clearPick();
  const g = game;
  if (!g || running || !isHumanTurn(g)) return;
  const ctl = new AbortController();
  running = ctl;
  const my = ++generation;
  updateControls();
  hintsEl.textContent = "thinking…";
  try {
    const { res, remNote } = await suggest(liveRow(g.row, g.pos), g.variant, ctl.signal);
    if (my !== generation) return;
    hintsEl.replaceChildren();
    const head = document.createElement("p");
    const list = document.createElement("ul");
    list.className = "hint-list";
    const item = (side: Side, take: bigint, remAfter: bigint | null): HTMLLIElement => {
      const li = document.createElement("li");
      li.textContent = describeMove(side, take) + (remAfter === null ? "" : `: ${moveOutcomePlies(remAfter)}`);
      return li;
    };
    const rem = optRem(res.remoteness);
    if (res.winningMoves.length === 0) {
      head.textContent = `every move loses${rem === null ? "" : ` (perfect play: the bot wins in ${plies(rem)})`}`;
      const top = res.moveRanges[0];
      if (top) {
        const left = rangeBest(top);
        const pile = top.side === Side.RIGHT ? g.pos.rightSize : g.pos.leftSize;
        head.textContent += "; the longest resistance:";
        list.append(item(top.side, pile - left, remAt(top, left)));
      }
    } else {
      const n = res.winningMoves.length;
      head.textContent = `winning move${n === 1 ? "" : "s"}:`;
      for (const m of res.winningMoves) list.append(item(m.side, m.take, optRem(m.remotenessAfter)));
    }
    hintsEl.append(head, list);
    if (remNote) {
      const note = document.createElement("p");
      note.textContent = remNote;
      hintsEl.append(note);
    }
    showTurnStatus(g);
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

// ---- the analysis board ----------------------------------------------------

/** The position shown, and what the server said about it. */
let analyzed: { route: AnalyzeRoute; res: SuggestMoveResponse | null } | null = null;
/** The move the step button played to get here (said once, on arrival). */
let stepped: string | null = null;
/** The analysis board's call, apart from the game's. */
let anRunning: AbortController | null = null;
let anGeneration = 0;

function inAnalysis(): boolean {
  return isAnalyzeHash(window.location.hash);
}

function route(): void {
  const analysis = inAnalysis();
  clearPick();
  // Only a game (in progress or over) to go back to gets the link.
  anGameLink.hidden = game === null;
  analysisSection.hidden = !analysis;
  gameSection.hidden = analysis;
  setupSection.hidden = analysis;
  if (analysis) void analyze();
  else {
    anRunning?.abort();
    anRunning = null;
    anGeneration++;
    if (game) redraw();
  }
}

function drawAnalysisBoard(): void {
  anBoard.replaceChildren();
  const a = analyzed;
  if (!a) return;
  const row = a.route.row;
  if (row.length === 0) {
    const empty = document.createElement("div");
    empty.className = "empty";
    empty.textContent = "no stones left";
    anBoard.append(empty);
    return;
  }
  const n = row.length;
  const endOf = (k: number): End => {
    if (n === 1) return "both";
    if (k === 0) return "left";
    if (k === n - 1 && a.route.variant === "two-ends") return "right";
    return null;
  };
  drawRow(anBoard, 0, n, (k) => row[k], endOf, (k) => a.res !== null && endOf(k) !== null);
}

async function analyze(): Promise<void> {
  anRunning?.abort();
  const my = ++anGeneration;
  rangesEl.replaceChildren();
  botStepBtn.disabled = true;
  anPlayBtn.disabled = true;
  anLastEl.textContent = stepped ?? "";
  stepped = null;
  let r: AnalyzeRoute;
  try {
    r = parseAnalyzeHash(window.location.hash);
  } catch (e) {
    analyzed = null;
    anBoard.replaceChildren();
    anVariantEl.hidden = true;
    verdictEl.textContent = `cannot analyze this address: ${(e as Error).message}`;
    verdictEl.className = "error";
    return;
  }
  revealed.delete(anBoard);
  analyzed = { route: r, res: null };
  anVariantEl.textContent =
    r.variant === "leftmost"
      ? "variant: leftmost (a move takes from the leftmost pile only)"
      : "variant: two-ends (a move takes from the leftmost or the rightmost pile)";
  anVariantEl.hidden = false;
  drawAnalysisBoard();
  if (r.row.length === 0) {
    verdictEl.textContent = "no stones left: the player to move has lost (the other player took the last stone)";
    verdictEl.className = "info";
    return;
  }
  anPlayBtn.disabled = false;
  verdictEl.textContent = "thinking…";
  verdictEl.className = "info";
  const ctl = new AbortController();
  anRunning = ctl;
  try {
    const { res, remNote } = await suggest(r.row, r.variant, ctl.signal);
    if (my !== anGeneration) return;
    analyzed = { route: r, res };
    const rem = optRem(res.remoteness);
    const who = res.moverWins ? "wins" : "loses";
    verdictEl.textContent =
      rem === null
        ? `the player to move ${who}${remNote ? ` (${remNote})` : ""}`
        : `the player to move ${who} in ${plies(rem)} with perfect play`;
    verdictEl.className = res.moverWins ? "win" : "loss";
    drawAnalysisBoard();
    drawRanges(r, res);
    botStepBtn.disabled = false;
  } catch (e) {
    if (my !== anGeneration) return;
    verdictEl.textContent = describeError(e);
    verdictEl.className = "error";
  } finally {
    if (my === anGeneration) anRunning = null;
  }
}

/** Moves shown per range; a longer range shows its best ones and says how many more it holds. */
const RANGE_CAP = 12;

function drawRanges(r: AnalyzeRoute, res: SuggestMoveResponse): void {
  rangesEl.replaceChildren();
  const row = r.row;
  if (res.moveRanges.length === 0) {
    // No remoteness: the winning moves only.
    const li = document.createElement("li");
    li.className = "range";
    li.textContent = res.winningMoves.length === 0 ? "every move loses" : "winning moves: ";
    for (const m of res.winningMoves) li.append(moveButton(r, m.side, m.take, null));
    rangesEl.append(li);
    return;
  }
  for (const range of res.moveRanges) {
    const pile = range.side === Side.RIGHT ? row[row.length - 1] : row[0];
    const li = document.createElement("li");
    li.className = `range ${range.moverWins ? "win" : "loss"}`;
    const size = rangeSize(range);
    const where = range.side === Side.RIGHT ? "right" : "left";
    const takeMin = pile - range.leftMax;
    const takeMax = pile - range.leftMin;
    const best = moveOutcome(remAt(range, rangeBest(range)));
    const head = document.createElement("span");
    head.className = "range-head";
    head.textContent =
      `${range.moverWins ? "wins" : "loses"}: take ${takeMin === takeMax ? takeMin : `${takeMin}–${takeMax}`} ` +
      `from the ${where} (${size} move${size === 1n ? "" : "s"}, best ${best})`;
    li.append(head);
    const moves = document.createElement("span");
    moves.className = "range-moves";
    for (const m of rangeMoves(range, pile, RANGE_CAP)) moves.append(moveButton(r, m.side, m.take, m.remAfter));
    if (size > BigInt(RANGE_CAP)) {
      const more = document.createElement("span");
      more.className = "more";
      more.textContent = `and ${size - BigInt(RANGE_CAP)} more`;
      moves.append(more);
    }
    li.append(moves);
    rangesEl.append(li);
  }
}

function moveButton(r: AnalyzeRoute, side: Side, take: bigint, remAfter: bigint | null): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "move";
  b.dataset.side = side === Side.RIGHT ? "R" : "L";
  b.dataset.take = take.toString();
  b.textContent = `${side === Side.RIGHT ? "R" : "L"} ${take}${remAfter === null ? "" : `: ${moveOutcome(remAfter)}`}`;
  b.title = `${describeMove(side, take)}; go to the position it leaves`;
  b.addEventListener("click", () => goAnalyze(r, side, take));
  return b;
}

/** Goes to the position after a move (a new history entry, so back returns). */
function goAnalyze(r: AnalyzeRoute, side: Side, take: bigint): void {
  window.location.hash = analyzeHash(applyMove(r.row, side, take), r.variant);
}

/**
 * The bot's step: SuggestMove's `chosen` at strength 1, asked with
 * want_remoteness, which is the tempo move (the fastest win, or the longest
 * resistance) the game's bot plays.
 */
function botStep(): void {
  const a = analyzed;
  const m = a?.res?.chosen;
  if (!a || !m || a.route.row.length === 0) return;
  const rem = optRem(m.remotenessAfter);
  stepped = `the bot played ${describeMove(m.side, m.take)}${rem === null ? "" : `: ${moveOutcome(rem)}`}`;
  goAnalyze(a.route, m.side, m.take);
}

function playAnalyzed(): void {
  const a = analyzed;
  if (!a || a.route.row.length === 0) return;
  rowInput.value = a.route.row.join(" ");
  variantSel.value = a.route.variant;
  saveForm();
  window.location.hash = "#/";
  rowInput.focus();
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
  resignBtn.addEventListener("click", askResign);
  resignYes.addEventListener("click", resign);
  resignNo.addEventListener("click", hideResignConfirm);
  resignConfirm.addEventListener("keydown", (e) => {
    if (e.key === "Escape") hideResignConfirm();
  });
  hintBtn.addEventListener("click", () => void hint());
  botStepBtn.addEventListener("click", botStep);
  anPlayBtn.addEventListener("click", playAnalyzed);
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
    const target = e.target as HTMLElement;
    const pile = target.closest<HTMLElement>(".pile.clickable");
    if (!pile) return;
    // A stone selects it and all above it; elsewhere on an end pile, the number in the box.
    const stone = target.closest<HTMLElement>(".stone[data-take]");
    tapPile(pile, stone ? BigInt(stone.dataset.take ?? "1") : null);
  });
  board.addEventListener("keydown", (e) => {
    const pile = (e.target as HTMLElement).closest<HTMLElement>(".pile.clickable");
    if (!pile || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      tapPile(pile, null);
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      stepPick(pile, e.key === "ArrowDown");
    }
  });
  // Any other action clears the selection: a click anywhere but on an end pile, an edit of the box.
  document.addEventListener("click", (e) => {
    if (!(e.target as HTMLElement).closest?.("#board .pile.clickable")) clearPick();
  });
  takeInput.addEventListener("input", clearPick);
  anBoard.addEventListener("click", (e) => {
    const target = e.target as HTMLElement;
    const stone = target.closest<HTMLElement>(".stone[data-take]");
    const pile = target.closest<HTMLElement>(".pile.clickable");
    const a = analyzed;
    if (!stone || !pile || !a) return;
    const take = BigInt(stone.dataset.take ?? "1");
    goAnalyze(a.route, pile.classList.contains("end-left") ? Side.LEFT : Side.RIGHT, take);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") clearPick();
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target) || inAnalysis()) return;
    if (e.key === "ArrowLeft" || e.key === "l" || e.key === "L") {
      e.preventDefault();
      sendMove(Side.LEFT);
    } else if (e.key === "ArrowRight" || e.key === "r" || e.key === "R") {
      e.preventDefault();
      sendMove(Side.RIGHT);
    }
  });
  window.addEventListener("hashchange", route);
  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(() => {
      if (inAnalysis()) drawAnalysisBoard();
      else drawBoard();
    }, 150);
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
  }
  route();
  if (game) showTurnStatus(game);
  else updateControls();
}

init();
