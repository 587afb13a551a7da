// The page's model of a game: the original row, the latest position the
// server sent, the moves played, and how to read and write them. No DOM and
// no network here, so this module is plain data and text.

import { EndReason, Seat, Side } from "./gen/stonegame/v1/stonegame_pb";

/** The largest pile the server accepts (2^63 - 1). */
export const MAX_PILE = (1n << 63n) - 1n;
/** The most piles the server accepts by default. */
export const MAX_PILES = 200_000;

export type VariantName = "two-ends" | "leftmost";
export type SeatName = "first" | "second";

/** A position, the fields of a GameState the page needs to redraw. */
export interface Position {
  ply: bigint;
  toMove: Seat;
  firstPile: number;
  lastPile: number;
  leftSize: bigint;
  rightSize: bigint;
  moverWins: boolean;
  /** The state token, to continue from this position. */
  token: Uint8Array;
  /** With analysis, on a small enough position: its remoteness for the player to move. */
  remoteness: bigint | null;
}

/** One move played, as the move list shows it. */
export interface PlayedEntry {
  /** 1-based move number (the ply after the move). */
  n: number;
  by: Seat;
  side: Side;
  take: bigint;
  remaining: bigint;
  blunder: boolean;
  /** With analysis: the remoteness of the position the move was played from (for its mover). */
  remBefore: bigint | null;
  /** With analysis: the remoteness of the position it left (for the player then to move). */
  remAfter: bigint | null;
}

/** How a game ended. */
export interface Ending {
  winner: Seat;
  reason: EndReason;
}

/** A game in progress or over. */
export interface Game {
  row: bigint[];
  variant: VariantName;
  seat: SeatName;
  strength: number;
  pos: Position;
  moves: PlayedEntry[];
  over: Ending | null;
}

/** Parses "3 1 4" (spaces, tabs, newlines or commas) into a row. */
export function parseRow(text: string): bigint[] {
  const words = text.split(/[\s,;]+/).filter((w) => w !== "");
  if (words.length === 0) throw new Error("the row is empty: enter pile sizes separated by spaces");
  return parseWords(words);
}

/** Checks and converts pile sizes, one per word. */
export function parseWords(words: string[]): bigint[] {
  if (words.length > MAX_PILES) {
    throw new Error(`the row has ${words.length} piles; at most ${MAX_PILES} are allowed`);
  }
  return words.map((w, i) => {
    if (!/^\d+$/.test(w)) throw new Error(`pile ${i + 1} ("${w.slice(0, 24)}") is not a whole number`);
    const v = BigInt(w);
    if (v === 0n) throw new Error(`pile ${i + 1} is 0; every pile needs at least one stone`);
    if (v > MAX_PILE) throw new Error(`pile ${i + 1} is larger than 2^63-1`);
    return v;
  });
}

/** Parses the take count: a whole number (0 is sent; the server refuses it). */
export function parseTake(text: string): bigint {
  const t = text.trim();
  if (!/^\d+$/.test(t)) throw new Error("enter how many stones to take (a whole number)");
  return BigInt(t);
}

/** A random row of n piles of 1 to 12 stones, from `random` (0 <= x < 1). */
export function randomRow(n: number, random: () => number): bigint[] {
  const count = Math.max(1, Math.min(MAX_PILES, Math.floor(n) || 1));
  const row: bigint[] = [];
  for (let i = 0; i < count; i++) row.push(BigInt(1 + Math.floor(random() * 12)));
  return row;
}

export function seatOf(name: SeatName): Seat {
  return name === "second" ? Seat.SECOND : Seat.FIRST;
}

export function isOver(g: Game): boolean {
  return g.over !== null || (g.pos.leftSize === 0n && g.pos.rightSize === 0n);
}

export function isHumanTurn(g: Game): boolean {
  return !isOver(g) && g.pos.toMove === seatOf(g.seat);
}

/** The number of live piles (0 when the game is over). */
export function liveCount(p: Position): number {
  if (p.leftSize === 0n && p.rightSize === 0n) return 0;
  return p.lastPile - p.firstPile + 1;
}

/** The size of the live pile at original index i (firstPile <= i <= lastPile). */
export function sizeAt(row: bigint[], p: Position, i: number): bigint {
  if (i === p.firstPile) return p.leftSize;
  if (i === p.lastPile) return p.rightSize;
  return row[i];
}

/** The live row, for SuggestMove. */
export function liveRow(row: bigint[], p: Position): bigint[] {
  const n = liveCount(p);
  if (n === 0) return [];
  if (n === 1) return [p.leftSize];
  const out = row.slice(p.firstPile, p.lastPile + 1);
  out[0] = p.leftSize;
  out[n - 1] = p.rightSize;
  return out;
}

export function sideLetter(side: Side): string {
  return side === Side.RIGHT ? "R" : "L";
}

/** "L 2 (take 2 from the left)". */
export function describeMove(side: Side, take: bigint): string {
  const where = side === Side.RIGHT ? "right" : "left";
  return `${sideLetter(side)} ${take} (take ${take} from the ${where})`;
}

/** "7 plies" / "1 ply". */
export function plies(n: bigint): string {
  return `${n} ${n === 1n ? "ply" : "plies"}`;
}

/** For the player to move at a position of remoteness r: "win in 7" or "lose in 12". */
export function outcomeIn(r: bigint): string {
  return `${r % 2n === 1n ? "win" : "lose"} in ${r}`;
}

/**
 * For the player who makes a move that leaves remoteness r (for the
 * opponent): the game lasts this move and r more plies, won by the mover
 * exactly when r is even. "win in 7" or "lose in 12".
 */
export function moveOutcome(rAfter: bigint): string {
  return `${rAfter % 2n === 0n ? "win" : "lose"} in ${rAfter + 1n}`;
}

/** moveOutcome with its unit: "win in 7 plies", "win in 1 ply". */
export function moveOutcomePlies(rAfter: bigint): string {
  return `${moveOutcome(rAfter)} ${rAfter + 1n === 1n ? "ply" : "plies"}`;
}

/**
 * What a move did with perfect play after it, from its mover's view: "win
 * in 7" when it kept the outcome and the length, "win in 7 → lose in 12"
 * when it changed them; "" without analysis.
 */
export function moveCost(e: PlayedEntry): string {
  if (e.remAfter === null) return "";
  const after = moveOutcome(e.remAfter);
  if (e.remBefore === null) return after;
  const before = outcomeIn(e.remBefore);
  return before === after ? after : `${before} → ${after}`;
}

/** "perfect play: you win in 7 plies" for the human to move at remoteness r; "" at the end. */
export function perfectPlayText(r: bigint | null): string {
  if (r === null || r === 0n) return "";
  return r % 2n === 1n ? `perfect play: you win in ${plies(r)}` : `perfect play: the bot wins in ${plies(r)}`;
}

/** "1. you: L 3 — win in 7" or "2. bot: R 1 (blunder) — win in 7 → lose in 12". */
export function moveText(e: PlayedEntry, human: Seat): string {
  const who = e.by === human ? "you" : "bot";
  const cost = moveCost(e);
  return `${e.n}. ${who}: ${sideLetter(e.side)} ${e.take}${e.blunder ? " (blunder)" : ""}${cost ? ` — ${cost}` : ""}`;
}

/** "bot took 2 from the right". */
export function tookText(who: string, side: Side, take: bigint): string {
  return `${who} took ${take} from the ${side === Side.RIGHT ? "right" : "left"}`;
}

/** The game-over text: "you won: …" or "you lost: …". */
export function endingText(over: Ending, human: Seat): string {
  const won = over.winner === human;
  const head = won ? "you won" : "you lost";
  let why: string;
  switch (over.reason) {
    case EndReason.RESIGNED:
      why = won ? "the bot resigned" : "you resigned";
      break;
    case EndReason.TIMEOUT:
      why = won ? "the bot ran out of time" : "you ran out of time";
      break;
    case EndReason.TOO_MANY_ILLEGAL_MOVES:
      why = won ? "the bot made too many illegal moves" : "you made too many illegal moves";
      break;
    default:
      why = won
        ? "you took the last stone; the bot has no moves"
        : "the bot took the last stone; you have no moves";
  }
  return `${head}: ${why}`;
}

/** The ending when a position says the game is over but no GameOver came. */
export function endingFromPosition(g: Game): Ending {
  // The player who took the last stone is the one not to move.
  const last = g.moves[g.moves.length - 1];
  const winner = last ? last.by : g.pos.toMove === Seat.FIRST ? Seat.SECOND : Seat.FIRST;
  return { winner, reason: EndReason.NO_MOVES };
}

// ---- persistence (sessionStorage) -----------------------------------------

export function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** The stored form of a Game: JSON with bigints as strings. */
interface StoredGame {
  v: 1;
  row: string;
  variant: VariantName;
  seat: SeatName;
  strength: number;
  pos: {
    ply: string;
    toMove: number;
    firstPile: number;
    lastPile: number;
    leftSize: string;
    rightSize: string;
    moverWins: boolean;
    token: string;
    /** The remoteness, absent when unknown. */
    rem?: string;
  };
  /** [n, by, side, take, remaining, blunder 0/1, remoteness before, after ("" when unknown)] per move. */
  moves: [number, number, number, string, string, number, string?, string?][];
  over: [number, number] | null;
}

export function serializeGame(g: Game): string {
  const s: StoredGame = {
    v: 1,
    row: g.row.join(" "),
    variant: g.variant,
    seat: g.seat,
    strength: g.strength,
    pos: {
      ply: g.pos.ply.toString(),
      toMove: g.pos.toMove,
      firstPile: g.pos.firstPile,
      lastPile: g.pos.lastPile,
      leftSize: g.pos.leftSize.toString(),
      rightSize: g.pos.rightSize.toString(),
      moverWins: g.pos.moverWins,
      token: toBase64(g.pos.token),
      ...(g.pos.remoteness === null ? {} : { rem: g.pos.remoteness.toString() }),
    },
    moves: g.moves.map((m) => [
      m.n,
      m.by,
      m.side,
      m.take.toString(),
      m.remaining.toString(),
      m.blunder ? 1 : 0,
      m.remBefore?.toString() ?? "",
      m.remAfter?.toString() ?? "",
    ]),
    over: g.over ? [g.over.winner, g.over.reason] : null,
  };
  return JSON.stringify(s);
}

function optBig(text: string | undefined): bigint | null {
  return text === undefined || text === "" ? null : BigInt(text);
}

/** Reads a stored game; null when absent or unreadable. */
export function deserializeGame(text: string | null): Game | null {
  if (!text) return null;
  try {
    const s = JSON.parse(text) as StoredGame;
    if (s.v !== 1) return null;
    const row = parseRow(s.row);
    const p = s.pos;
    const pos: Position = {
      ply: BigInt(p.ply),
      toMove: p.toMove as Seat,
      firstPile: p.firstPile,
      lastPile: p.lastPile,
      leftSize: BigInt(p.leftSize),
      rightSize: BigInt(p.rightSize),
      moverWins: p.moverWins,
      token: fromBase64(p.token),
      remoteness: optBig(p.rem),
    };
    if (!(pos.firstPile >= 0 && pos.lastPile < row.length && pos.firstPile <= pos.lastPile)) return null;
    return {
      row,
      variant: s.variant === "leftmost" ? "leftmost" : "two-ends",
      seat: s.seat === "second" ? "second" : "first",
      strength: s.strength,
      pos,
      moves: s.moves.map(([n, by, side, take, remaining, blunder, before, after]) => ({
        n,
        by: by as Seat,
        side: side as Side,
        take: BigInt(take),
        remaining: BigInt(remaining),
        blunder: blunder === 1,
        remBefore: optBig(before),
        remAfter: optBig(after),
      })),
      over: s.over ? { winner: s.over[0] as Seat, reason: s.over[1] as EndReason } : null,
    };
  } catch {
    return null;
  }
}

/** A pile size written short enough for a column: 1234567 -> "1.23M". */
export function shortSize(v: bigint): string {
  if (v < 100_000n) return v.toString();
  const units: [bigint, string][] = [
    [1_000_000_000_000n, "T"],
    [1_000_000_000n, "B"],
    [1_000_000n, "M"],
    [1_000n, "k"],
  ];
  for (const [u, name] of units) {
    if (v >= u && v < u * 1000n) return scaled(v, u, name);
  }
  // 10^15 and more: scientific, e.g. "9.22e18".
  const digits = v.toString();
  const exp = digits.length - 1;
  return `${digits[0]}.${digits.slice(1, 3)}e${exp}`;
}

/** v / u with 3 significant digits, rounded down so a size is never overstated. */
function scaled(v: bigint, u: bigint, name: string): string {
  const hundredths = (v * 100n) / u;
  const whole = hundredths / 100n;
  if (whole >= 100n) return `${whole}${name}`;
  if (whole >= 10n) return `${whole}.${(hundredths / 10n) % 10n}${name}`;
  return `${whole}.${(hundredths % 100n).toString().padStart(2, "0")}${name}`;
}
