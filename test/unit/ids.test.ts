import { describe, expect, it, vi } from "vitest";
import type { IdKind } from "../../functions/domain/ids.js";

type IdsModule = typeof import("../../functions/domain/ids.js");

/**
 * The id module keeps the last timestamp it used (for monotonic ids); each test
 * that cares about timestamps loads a fresh copy so earlier tests cannot leak in.
 */
async function freshIds(): Promise<IdsModule> {
  vi.resetModules();
  return import("../../functions/domain/ids.js");
}

/** Crockford's base32 alphabet: digits and capitals without I, L, O, U. */
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ULID_BODY = new RegExp(`^[${CROCKFORD}]{26}$`);

/** Milliseconds encoded by the first 10 characters of a ULID (big-endian base32). */
function decodeTime(id: string): number {
  const body = id.slice(id.indexOf("_") + 1);
  let time = 0;
  for (const char of body.slice(0, 10)) {
    const digit = CROCKFORD.indexOf(char);
    if (digit < 0) throw new Error(`Not a Crockford base32 character: ${char}`);
    time = time * 32 + digit;
  }
  return time;
}

const PREFIXES: ReadonlyArray<readonly [IdKind, string]> = [
  ["session", "ses_"],
  ["event", "evt_"],
  ["apiKey", "key_"],
];

describe("newId", () => {
  it.each(PREFIXES)("gives a %s id the prefix %s and a 26-character Crockford ULID", async (kind, prefix) => {
    // Prepare
    const { newId } = await freshIds();

    // Act
    const id = newId(kind);

    // Assess
    expect(id.startsWith(prefix)).toBe(true);
    expect(id).toHaveLength(prefix.length + 26);
    expect(id.slice(prefix.length)).toMatch(ULID_BODY);
  });

  it.each([
    ["the epoch", 0],
    ["a 2025 timestamp", Date.UTC(2025, 5, 15, 12, 30, 45, 123)],
    ["a value needing every digit", 0x1234_5678_9abc],
    ["the largest 48-bit timestamp", 2 ** 48 - 1],
  ])("encodes %s in the time part", async (_label, now) => {
    // Prepare
    const { newId } = await freshIds();

    // Act
    const id = newId("event", now);

    // Assess
    expect(decodeTime(id)).toBe(now);
  });

  it("uses the current time when none is given", async () => {
    // Prepare
    const { newId } = await freshIds();
    const before = Date.now();

    // Act
    const id = newId("session");

    // Assess
    const after = Date.now();
    expect(decodeTime(id)).toBeGreaterThanOrEqual(before);
    expect(decodeTime(id)).toBeLessThanOrEqual(after);
  });

  it("sorts ids minted at increasing timestamps in timestamp order", async () => {
    // Prepare: boundaries where base32 digits carry (31→32, 1023→1024, …).
    const { newId } = await freshIds();
    const base = Date.UTC(2024, 0, 1);
    const timestamps = [0, 1, 31, 32, 1023, 1024, base, base + 1, base + 31, base + 32, base + 86_400_000, 2 ** 47];

    // Act
    const ids = timestamps.map((now) => newId("session", now));

    // Assess
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map(decodeTime)).toEqual(timestamps);
  });

  it("sorts by time regardless of the random part (ids from independent processes)", async () => {
    // Prepare: each id from a fresh module, so no monotonic state links them.
    const earlier = (await freshIds()).newId("event", 1_700_000_000_000);
    const later = (await freshIds()).newId("event", 1_700_000_000_001);

    // Act
    const sorted = [later, earlier].sort();

    // Assess
    expect(sorted).toEqual([earlier, later]);
  });

  it("mints strictly increasing ids within one millisecond", async () => {
    // Prepare
    const { newId } = await freshIds();
    const now = Date.UTC(2025, 0, 1);

    // Act
    const ids = Array.from({ length: 1000 }, () => newId("event", now));

    // Assess
    for (let i = 1; i < ids.length; i++) {
      expect((ids[i - 1] ?? "") < (ids[i] ?? "")).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => decodeTime(id) === now)).toBe(true);
  });

  it("keeps ids in order when the clock goes backwards", async () => {
    // Prepare
    const { newId } = await freshIds();
    const first = newId("session", 2_000_000);

    // Act
    const second = newId("session", 1_000_000);

    // Assess
    expect(first < second).toBe(true);
  });

  it("gives different random parts to ids of the same millisecond in different processes", async () => {
    // Prepare
    const now = Date.UTC(2025, 0, 1);

    // Act
    const ids = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const { newId } = await freshIds();
        return newId("event", now);
      }),
    );

    // Assess
    expect(new Set(ids).size).toBe(20);
  });
});

describe("isId", () => {
  it.each(PREFIXES)("accepts generated %s ids", async (kind) => {
    // Prepare
    const { isId, newId } = await freshIds();
    const ids = Array.from({ length: 50 }, () => newId(kind));

    // Act
    const accepted = ids.filter((id) => isId(kind, id));

    // Assess
    expect(accepted).toEqual(ids);
  });

  it("rejects an id of another kind", async () => {
    // Prepare
    const { isId, newId } = await freshIds();
    const sessionId = newId("session");

    // Act
    const results = [isId("event", sessionId), isId("apiKey", sessionId)];

    // Assess
    expect(results).toEqual([false, false]);
  });

  const VALID_BODY = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

  it("accepts a hand-written well-formed id", async () => {
    // Prepare
    const { isId } = await freshIds();

    // Act
    const result = isId("session", `ses_${VALID_BODY}`);

    // Assess
    expect(result).toBe(true);
  });

  it.each([
    ["a wrong prefix", `sess_${VALID_BODY}`],
    ["an upper-case prefix", `SES_${VALID_BODY}`],
    ["another separator", `ses-${VALID_BODY}`],
    ["no prefix", VALID_BODY],
    ["a body one character short", `ses_${VALID_BODY.slice(1)}`],
    ["a body one character long", `ses_${VALID_BODY}0`],
    ["a lower-case body", `ses_${VALID_BODY.toLowerCase()}`],
    ["one lower-case character", `ses_${VALID_BODY.slice(0, 25)}v`],
    ["the letter I", `ses_${VALID_BODY.slice(0, 25)}I`],
    ["the letter L", `ses_${VALID_BODY.slice(0, 25)}L`],
    ["the letter O", `ses_${VALID_BODY.slice(0, 25)}O`],
    ["the letter U", `ses_${VALID_BODY.slice(0, 25)}U`],
    ["leading whitespace", ` ses_${VALID_BODY}`],
    ["a trailing newline", `ses_${VALID_BODY}\n`],
    ["the empty string", ""],
  ])("rejects %s", async (_label, candidate) => {
    // Prepare
    const { isId } = await freshIds();

    // Act
    const result = isId("session", candidate);

    // Assess
    expect(result).toBe(false);
  });
});
