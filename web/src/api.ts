// The server, over gRPC-Web (binary) on the page's own origin.

import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { StoneGame } from "./gen/stonegame/v1/stonegame_pb";

export type StoneGameClient = Client<typeof StoneGame>;

export function makeClient(): StoneGameClient {
  const transport = createGrpcWebTransport({
    baseUrl: window.location.origin,
    useBinaryFormat: true,
  });
  return createClient(StoneGame, transport);
}

/** Call options: the bearer token when one is set, and the abort signal. */
export function callOptions(token: string, signal?: AbortSignal): { headers: Headers; signal?: AbortSignal } {
  const headers = new Headers();
  const t = token.trim();
  if (t !== "") headers.set("authorization", `Bearer ${t}`);
  return { headers, signal };
}

/** gRPC's name of a code: Code.ResourceExhausted -> "RESOURCE_EXHAUSTED". */
export function codeName(code: Code): string {
  if (code === Code.Canceled) return "CANCELLED";
  const camel = Code[code] ?? `CODE_${code}`;
  return camel.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** The server's retry hint in ms: the `retry-after-ms` header or trailer, else the message. */
export function retryAfterMs(err: ConnectError): number | null {
  // Headers and trailers are merged into the metadata, so a value sent in
  // both reads as "1500, 1500": take the first.
  const v = /^\s*(\d+)\s*(?:,|$)/.exec(err.metadata.get("retry-after-ms") ?? "");
  if (v) return Number(v[1]);
  const m = /retry (?:after|in) (\d+) ?ms/i.exec(err.rawMessage);
  return m ? Number(m[1]) : null;
}

function looksLikeNetworkFailure(err: ConnectError): boolean {
  if (err.code === Code.Unavailable) return true;
  if (err.code !== Code.Unknown) return false;
  if (err.cause instanceof TypeError) return true;
  return /failed to fetch|networkerror|load failed|network error|fetch/i.test(err.rawMessage);
}

/** The status-line text for a failed call. */
export function describeError(e: unknown): string {
  const err = ConnectError.from(e);
  if (err.code === Code.Canceled) return "cancelled";
  if (looksLikeNetworkFailure(err)) {
    const detail = err.rawMessage ? ` (${err.rawMessage})` : "";
    return `cannot reach the server${detail}: check that it is running and try again`;
  }
  const name = codeName(err.code);
  if (err.code === Code.ResourceExhausted) {
    const ms = retryAfterMs(err);
    const when = ms !== null ? `retry in ${ms} ms` : "retry later";
    return `server busy (RESOURCE_EXHAUSTED): ${when}${err.rawMessage ? ` (${err.rawMessage})` : ""}`;
  }
  if (err.code === Code.Unauthenticated || err.code === Code.PermissionDenied) {
    return `the server refused: ${name} (${err.rawMessage}): set a token under settings`;
  }
  return `the server refused: ${name} (${err.rawMessage})`;
}
