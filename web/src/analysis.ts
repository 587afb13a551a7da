// The analysis board's model: its address (`#/analyze?row=…&variant=…`),
// the moves of a MoveRange and their remoteness. No DOM, no network.

import { parseWords, type VariantName } from "./game";
import { type MoveRange, Side } from "./gen/stonegame/v1/stonegame_pb";

/** A position to analyse, as its address gives it. */
export interface AnalyzeRoute {
  /** The live row; empty when no stone is left. */
  row: bigint[];
  variant: VariantName;
}

/** The address of the analysis board at `row`. */
export function analyzeHash(row: bigint[], variant: VariantName): string {
  return `#/analyze?row=${row.join(",")}&variant=${variant}`;
}

/** Is this address (a location.hash) the analysis board's? */
export function isAnalyzeHash(hash: string): boolean {
  return /^#\/analyze(?:[?&]|$)/.test(hash);
}

/** Reads the analysis board's address; throws an Error saying what is wrong. */
export function parseAnalyzeHash(hash: string): AnalyzeRoute {
  const q = hash.indexOf("?");
  const params = new URLSearchParams(q < 0 ? "" : hash.slice(q + 1));
  const rowText = params.get("row");
  if (rowText === null) {
    throw new Error("the address names no row: add one, e.g. #/analyze?row=3,1,4,1,5&variant=two-ends");
  }
  const variantText = params.get("variant") ?? "two-ends";
  if (variantText !== "two-ends" && variantText !== "leftmost") {
    throw new Error(`the variant "${variantText.slice(0, 24)}" is not one of two-ends, leftmost`);
  }
  const words = rowText.split(/[\s,;]+/).filter((w) => w !== "");
  return { row: parseWords(words), variant: variantText };
}

/** The row after taking `take` stones from `side` (a pile that empties goes). */
export function applyMove(row: bigint[], side: Side, take: bigint): bigint[] {
  const out = row.slice();
  const at = side === Side.RIGHT ? out.length - 1 : 0;
  out[at] -= take;
  if (out[at] === 0n) out.splice(at, 1);
  return out;
}

/** The remoteness the range's move leaving `left` stones leaves. */
export function remAt(r: MoveRange, left: bigint): bigint {
  const base = BigInt(r.remotenessAtMin?.plies ?? "0");
  return base + r.slope * (left - r.leftMin);
}

/**
 * The stones the range's best move leaves (fastest win or longest loss,
 * more stones left on a tie), as the server's core picks it.
 */
export function rangeBest(r: MoveRange): bigint {
  const up = r.moverWins ? r.slope <= 0n : r.slope >= 0n;
  return up ? r.leftMax : r.leftMin;
}

/** One move of a range. */
export interface RangeMove {
  side: Side;
  take: bigint;
  left: bigint;
  /** The remoteness it leaves, for the player then to move. */
  remAfter: bigint;
}

/**
 * The moves of a range on a pile of `pile` stones, best first; when the
 * range holds more than `cap` moves, only the `cap` best ones (the caller
 * says how many are left out).
 */
export function rangeMoves(r: MoveRange, pile: bigint, cap: number): RangeMove[] {
  const out: RangeMove[] = [];
  const count = r.leftMax - r.leftMin + 1n;
  const n = count < BigInt(cap) ? Number(count) : cap;
  const best = rangeBest(r);
  // From the best end of the range towards the other.
  const step = best === r.leftMax ? -1n : 1n;
  for (let k = 0; k < n; k++) {
    const left = best + step * BigInt(k);
    out.push({ side: r.side, take: pile - left, left, remAfter: remAt(r, left) });
  }
  return out;
}

/** The number of moves in a range. */
export function rangeSize(r: MoveRange): bigint {
  return r.leftMax - r.leftMin + 1n;
}
