/** The feedback token format (issue 33): signing, verification, tampering, expiry, bounds and odd names. */
import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  allowsScoreName,
  type FeedbackTokenClaims,
  feedbackTokenNamesFit,
  signFeedbackToken,
  verifyFeedbackToken,
} from "../../functions/domain/feedback-token.js";
import { LIMITS } from "../../functions/domain/limits.js";

const KEY = randomBytes(32);
const NOW_MS = Date.parse("2026-11-27T06:00:00.000Z");

function claims(overrides: Partial<FeedbackTokenClaims> = {}): FeedbackTokenClaims {
  return {
    tokenId: "fbt_01KAZ3XD3E4F5G6H7J8K9M0NP1",
    orgId: "org-acme",
    environment: "live",
    sessionId: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE",
    eventId: "evt_01KAZ3X9B2C3D4E5F6G7H8J9KM",
    names: ["thumbs"],
    expiresAt: NOW_MS / 1000 + 3600,
    retentionDays: 30,
    ...overrides,
  };
}

/** A token whose payload is `text`, signed with KEY (to test shapes the signer would never make). */
function signedRaw(text: string): string {
  const body = `atsf_${Buffer.from(text).toString("base64url")}`;
  return `${body}.${createHmac("sha256", KEY).update(body).digest("base64url")}`;
}

describe("signFeedbackToken / verifyFeedbackToken", () => {
  it("round-trips the claims of a token it signed", () => {
    const token = signFeedbackToken(claims(), KEY);

    const check = verifyFeedbackToken(token, KEY, NOW_MS);

    expect(token).toMatch(/^atsf_[\w-]+\.[\w-]{43}$/);
    expect(check).toEqual({ ok: true, claims: claims() });
  });

  it("round-trips a token without event and names", () => {
    const bare = claims({ eventId: undefined, names: undefined });
    const { eventId: _event, names: _names, ...expected } = bare;

    expect(verifyFeedbackToken(signFeedbackToken(bare, KEY), KEY, NOW_MS)).toEqual({ ok: true, claims: expected });
  });

  it("refuses a token signed with another key (another deployment)", () => {
    const token = signFeedbackToken(claims(), randomBytes(32));

    expect(verifyFeedbackToken(token, KEY, NOW_MS)).toEqual({ ok: false, problem: "signature" });
  });

  it("refuses a token whose payload was changed, keeping its signature", () => {
    const token = signFeedbackToken(claims(), KEY);
    const [, signature] = token.split(".");
    const forged = signFeedbackToken(claims({ sessionId: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WF" }), randomBytes(32));
    const [forgedPayload] = forged.split(".");

    expect(verifyFeedbackToken(`${forgedPayload}.${signature}`, KEY, NOW_MS)).toEqual({
      ok: false,
      problem: "signature",
    });
  });

  it("refuses every single-character change of a token", () => {
    const token = signFeedbackToken(claims(), KEY);
    const outcomes = new Set<boolean>();
    for (let index = 0; index < token.length; index += 3) {
      const character = token[index] === "A" ? "B" : "A";
      const changed = `${token.slice(0, index)}${character}${token.slice(index + 1)}`;
      outcomes.add(verifyFeedbackToken(changed, KEY, NOW_MS).ok);
    }

    expect(outcomes).toEqual(new Set([false]));
  });

  it("accepts only the canonical spelling of the signature's last character (its spare bits are not ignored)", () => {
    const token = signFeedbackToken(claims(), KEY);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const accepted = [...alphabet].filter(
      (character) => verifyFeedbackToken(`${token.slice(0, -1)}${character}`, KEY, NOW_MS).ok,
    );

    expect(accepted).toEqual([token.at(-1)]);
  });

  it("refuses a token at and after its expiry, and takes it a moment before", () => {
    const token = signFeedbackToken(claims({ expiresAt: NOW_MS / 1000 }), KEY);

    expect(verifyFeedbackToken(token, KEY, NOW_MS)).toEqual({ ok: false, problem: "expired" });
    expect(verifyFeedbackToken(token, KEY, NOW_MS + 1)).toEqual({ ok: false, problem: "expired" });
    expect(verifyFeedbackToken(token, KEY, NOW_MS - 1).ok).toBe(true);
  });

  it.each([
    ["an API key", "ats_live_Zq4mT9xW2pR7vN1bY6cH3jL8sD5fG0kA7Hn2Qe"],
    ["no signature", "atsf_eyJ2IjoxfQ"],
    ["two dots", "atsf_eyJ2IjoxfQ.abc.def"],
    ["a payload that is not base64url", "atsf_ey+J2/IjoxfQ.abc"],
    ["an over-long token", `atsf_${"A".repeat(LIMITS.feedbackTokenLength)}.abc`],
    ["an empty string", ""],
  ])("refuses %s as malformed without checking a signature", (_what, token) => {
    expect(verifyFeedbackToken(token, KEY, NOW_MS)).toEqual({ ok: false, problem: "malformed" });
  });

  it.each([
    ["a payload that is not JSON", "not json"],
    ["an array", [1, 2]],
    ["another version", { ...compact(), v: 2 }],
    ["a token id of another kind", { ...compact(), t: "key_01KAZ2R4M7N8P9Q0R1S2T3V4WX" }],
    ["an unknown environment", { ...compact(), e: "staging" }],
    ["a session id that is not one", { ...compact(), s: "SESSION#x" }],
    ["an event id that is not one", { ...compact(), ev: 7 }],
    ["names that are not an array", { ...compact(), n: { __proto__: "x" } }],
    ["too many names", { ...compact(), n: Array.from({ length: LIMITS.feedbackTokenNames + 1 }, (_, i) => `n${i}`) }],
    ["a name too long", { ...compact(), n: ["x".repeat(LIMITS.scoreNameLength + 1)] }],
    ["names too large together", { ...compact(), n: Array(10).fill("\u0001".repeat(20)) }],
    ["an expiry that is not a number", { ...compact(), x: "tomorrow" }],
    ["a retention below a day", { ...compact(), r: 0 }],
  ])("refuses a correctly signed payload with %s", (_what, payload) => {
    const token = signedRaw(typeof payload === "string" ? payload : JSON.stringify(payload));

    expect(verifyFeedbackToken(token, KEY, NOW_MS)).toEqual({ ok: false, problem: "malformed" });
  });

  it("keeps __proto__ and constructor as plain names, never as object keys", () => {
    const token = signFeedbackToken(claims({ names: ["__proto__", "constructor"] }), KEY);
    const check = verifyFeedbackToken(token, KEY, NOW_MS);
    if (!check.ok) throw new Error("token refused");

    expect(check.claims.names).toEqual(["__proto__", "constructor"]);
    expect(allowsScoreName(check.claims, "__proto__")).toBe(true);
    expect(allowsScoreName(check.claims, "constructor")).toBe(true);
    expect(allowsScoreName(check.claims, "toString")).toBe(false);
    expect(Object.getPrototypeOf(check.claims)).toBe(Object.prototype);
  });

  it("allows any name when the token lists none, only its own otherwise", () => {
    expect(allowsScoreName(claims({ names: undefined }), "anything")).toBe(true);
    expect(allowsScoreName(claims(), "thumbs")).toBe(true);
    expect(allowsScoreName(claims(), "Thumbs")).toBe(false);
  });

  it("stays within its length bound with the most a minting request may ask for", () => {
    // Control characters take 6 bytes each as JSON (\u0001): the names' bound is on their JSON.
    const name = "\u0001".repeat(Math.floor((LIMITS.feedbackTokenNamesBytes - 2 - 3 * 10) / 6 / 10));
    const names = Array.from({ length: LIMITS.feedbackTokenNames }, () => name);
    const longest = claims({ orgId: "o".repeat(200), names });

    const token = signFeedbackToken(longest, KEY);

    expect(feedbackTokenNamesFit(names)).toBe(true);
    expect(feedbackTokenNamesFit([...names.slice(1), `${name}${"\u0001".repeat(20)}`])).toBe(false);
    expect(feedbackTokenNamesFit(Array(10).fill("\u{1F44E}".repeat(LIMITS.scoreNameLength)))).toBe(false);
    expect(token.length).toBeLessThanOrEqual(LIMITS.feedbackTokenLength);
    expect(verifyFeedbackToken(token, KEY, NOW_MS).ok).toBe(true);
  });
});

function compact(): Record<string, unknown> {
  return {
    v: 1,
    t: "fbt_01KAZ3XD3E4F5G6H7J8K9M0NP1",
    o: "org-acme",
    e: "live",
    s: "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE",
    x: NOW_MS / 1000 + 3600,
    r: 30,
  };
}
