/**
 * End-user feedback tokens (issue 33): a short-lived, stateless bearer credential bound to one session of one
 * tenant (and optionally one event and a list of score names), minted by the agent's backend with an API key
 * and handed to a browser, which may post a score with it and do nothing else. Pure: the format, signing and
 * verification, given the signing key and the time. No I/O, no HTTP.
 *
 * Format: `atsf_<payload>.<signature>`: the payload is the claims as JSON, base64url; the signature is
 * HMAC-SHA256 over `atsf_<payload>` with the deployment's feedback-token key, base64url. Minting writes nothing.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { ENVIRONMENTS, type Environment } from "./api-key.js";
import { isId } from "./ids.js";
import { LIMITS } from "./limits.js";

export const FEEDBACK_TOKEN_PREFIX = "atsf_";

/** What a feedback token allows: scores by end users on one session (and event) of one tenant, until it expires. */
export interface FeedbackTokenClaims {
  /** `fbt_` + ULID: the author of the scores posted with the token. */
  readonly tokenId: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly sessionId: string;
  readonly eventId?: string | undefined;
  /** The score names the token may write; absent: any name. */
  readonly names?: readonly string[] | undefined;
  /** Expiry, seconds since the epoch. */
  readonly expiresAt: number;
  /** The organisation's retention (days) when the token was minted: the TTL of a score whose session has none. */
  readonly retentionDays: number;
}

/** Why a token was refused, in words a browser's developer can act on. */
export type FeedbackTokenProblem = "malformed" | "signature" | "expired";

export type FeedbackTokenCheck =
  | { readonly ok: true; readonly claims: FeedbackTokenClaims }
  | { readonly ok: false; readonly problem: FeedbackTokenProblem };

/** Whether a bearer credential is meant as a feedback token (by its prefix), so other routes can name it. */
export function looksLikeFeedbackToken(credential: string): boolean {
  return credential.startsWith(FEEDBACK_TOKEN_PREFIX);
}

function signature(key: Buffer, signed: string): Buffer {
  return createHmac("sha256", key).update(signed).digest();
}

/** The token carrying `claims`, signed with `key`. */
export function signFeedbackToken(claims: FeedbackTokenClaims, key: Buffer): string {
  const compact = {
    v: 1,
    t: claims.tokenId,
    o: claims.orgId,
    e: claims.environment,
    s: claims.sessionId,
    ...(claims.eventId === undefined ? {} : { ev: claims.eventId }),
    ...(claims.names === undefined ? {} : { n: claims.names }),
    x: claims.expiresAt,
    r: claims.retentionDays,
  };
  const signed = `${FEEDBACK_TOKEN_PREFIX}${Buffer.from(JSON.stringify(compact)).toString("base64url")}`;
  const token = `${signed}.${signature(key, signed).toString("base64url")}`;
  if (token.length > LIMITS.feedbackTokenLength) throw new Error("A feedback token outgrew its length limit");
  return token;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function isBoundedText(value: unknown, maxCharacters: number): value is string {
  return typeof value === "string" && value.length > 0 && [...value].length <= maxCharacters;
}

/** Whether score names fit in a token: how many, and their size as JSON (escapes included). */
export function feedbackTokenNamesFit(names: readonly string[]): boolean {
  return (
    names.length >= 1 &&
    names.length <= LIMITS.feedbackTokenNames &&
    Buffer.byteLength(JSON.stringify(names), "utf8") <= LIMITS.feedbackTokenNamesBytes
  );
}

/** The claims of a signed payload, or undefined when its shape is not exactly one this module makes. */
function claimsOf(decoded: unknown): FeedbackTokenClaims | undefined {
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded)) return undefined;
  const { v, t, o, e, s, ev, n, x, r } = decoded as Record<string, unknown>;
  if (v !== 1 || typeof t !== "string" || !isId("feedbackToken", t)) return undefined;
  if (!isBoundedText(o, 200) || typeof e !== "string" || !(ENVIRONMENTS as readonly string[]).includes(e)) {
    return undefined;
  }
  if (typeof s !== "string" || !isId("session", s)) return undefined;
  if (ev !== undefined && (typeof ev !== "string" || !isId("event", ev))) return undefined;
  if (
    n !== undefined &&
    (!Array.isArray(n) ||
      !n.every((entry) => isBoundedText(entry, LIMITS.scoreNameLength)) ||
      !feedbackTokenNamesFit(n))
  ) {
    return undefined;
  }
  if (typeof x !== "number" || !Number.isSafeInteger(x)) return undefined;
  if (typeof r !== "number" || !Number.isSafeInteger(r) || r < 1) return undefined;
  return {
    tokenId: t,
    orgId: o,
    environment: e as Environment,
    sessionId: s,
    ...(ev === undefined ? {} : { eventId: ev as string }),
    ...(n === undefined ? {} : { names: n as string[] }),
    expiresAt: x,
    retentionDays: r,
  };
}

/**
 * Verifies a token: its length, prefix and shape, its signature (constant-time) and only then its claims and
 * expiry. A token of another deployment fails the signature (each deployment has its own key).
 */
export function verifyFeedbackToken(token: string, key: Buffer, nowMs: number): FeedbackTokenCheck {
  const malformed = { ok: false, problem: "malformed" } as const;
  if (token.length > LIMITS.feedbackTokenLength || !looksLikeFeedbackToken(token)) return malformed;
  const dot = token.indexOf(".");
  if (dot < 0 || token.indexOf(".", dot + 1) >= 0) return malformed;
  const signed = token.slice(0, dot);
  const payload = signed.slice(FEEDBACK_TOKEN_PREFIX.length);
  const given = token.slice(dot + 1);
  if (!BASE64URL.test(payload) || !BASE64URL.test(given)) return malformed;
  // Compared as text, not as decoded bytes: base64url's last character carries spare bits, so decoding would
  // let a few different spellings of one signature through (the canonical spelling is the only one accepted).
  const expected = Buffer.from(signature(key, signed).toString("base64url"));
  const givenText = Buffer.from(given);
  if (givenText.length !== expected.length || !timingSafeEqual(givenText, expected)) {
    return { ok: false, problem: "signature" };
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return malformed;
  }
  const claims = claimsOf(decoded);
  if (claims === undefined) return malformed;
  if (claims.expiresAt * 1000 <= nowMs) return { ok: false, problem: "expired" };
  return { ok: true, claims };
}

/** Whether a token allows a score of this name: any name when it lists none. */
export function allowsScoreName(claims: FeedbackTokenClaims, name: string): boolean {
  return claims.names === undefined || claims.names.includes(name);
}
