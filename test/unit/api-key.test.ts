import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ENVIRONMENTS, generateApiKey, hashApiKey, parseApiKey } from "../../functions/domain/api-key.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_SHAPE = /^ats_(live|test)_[0-9A-Za-z]{38}$/;
const PREFIX_LENGTH = "ats_live_".length; // same length for "ats_test_"

/**
 * The documented checksum, written independently: the CRC-32 of everything
 * before it as 6 base62 digits, most significant first.
 */
function documentedChecksum(body: string): string {
  let value = crc32(body);
  let out = "";
  for (let i = 0; i < 6; i++) {
    out = `${BASE62[value % 62] ?? ""}${out}`;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A base62 character different from `char`. */
function otherThan(char: string): string {
  return char === "A" ? "B" : "A";
}

function replaceAt(text: string, index: number, char: string): string {
  return text.slice(0, index) + char + text.slice(index + 1);
}

describe("generateApiKey", () => {
  it.each(ENVIRONMENTS)("makes %s keys of the form ats_<env>_ + 38 base62 characters", (environment) => {
    // Prepare
    const prefix = `ats_${environment}_`;

    // Act
    const key = generateApiKey(environment);

    // Assess
    expect(key.plaintext).toMatch(KEY_SHAPE);
    expect(key.plaintext.startsWith(prefix)).toBe(true);
    expect(key.plaintext).toHaveLength(prefix.length + 38);
  });

  it("ends the key with the CRC-32 of the rest as 6 base62 characters", () => {
    // Prepare
    const key = generateApiKey("live").plaintext;

    // Act
    const checksum = documentedChecksum(key.slice(0, -6));

    // Assess
    expect(key.slice(-6)).toBe(checksum);
  });

  it("gives the SHA-256 of the key as its hash and its last four characters as its hint", () => {
    // Prepare
    const key = generateApiKey("test");

    // Act
    const expectedHash = createHash("sha256").update(key.plaintext).digest("hex");

    // Assess
    expect(key.hash).toBe(expectedHash);
    expect(key.hint).toBe(key.plaintext.slice(key.plaintext.length - 4));
    expect(key.hint).toHaveLength(4);
  });

  it("makes 1,000 distinct keys with distinct hashes", () => {
    // Prepare
    const count = 1000;

    // Act
    const keys = Array.from({ length: count }, () => generateApiKey("live"));

    // Assess
    expect(new Set(keys.map((key) => key.plaintext)).size).toBe(count);
    expect(new Set(keys.map((key) => key.hash)).size).toBe(count);
  });

  it("uses every base62 character in the secrets, without favouring any", () => {
    // Prepare: 1,000 secrets = 32,000 characters, about 516 of each.
    const secrets = Array.from({ length: 1000 }, () => generateApiKey("test").plaintext.slice(PREFIX_LENGTH, -6));
    const counts = new Map<string, number>();

    // Act
    for (const secret of secrets) for (const char of secret) counts.set(char, (counts.get(char) ?? 0) + 1);

    // Assess: every character appears; bounds are many standard deviations
    // (≈22) wide, so they only fail for a broken generator.
    expect([...counts.keys()].sort()).toEqual([...BASE62].sort());
    for (const char of BASE62) {
      const seen = counts.get(char) ?? 0;
      expect(seen, `count of ${char}`).toBeGreaterThan(300);
      expect(seen, `count of ${char}`).toBeLessThan(750);
    }
    // Modulo bias check: a plain `byte % 62` (256 = 4 × 62 + 8) would give
    // '0'–'7' a chance of 5/256 each instead of 1/62, i.e. ≈625 occurrences
    // instead of ≈516. Uniform: their mean is 516 ± 8 (1 sd), biased 625 ± 9,
    // so 580 separates the two by more than 5 sd either way.
    const firstEight = [..."01234567"].map((char) => counts.get(char) ?? 0);
    const mean = firstEight.reduce((sum, seen) => sum + seen, 0) / firstEight.length;
    expect(mean).toBeLessThan(580);
  });
});

describe("parseApiKey", () => {
  it.each(ENVIRONMENTS)("returns %s for a generated %s key", (environment) => {
    // Prepare
    const key = generateApiKey(environment).plaintext;

    // Act
    const parsed = parseApiKey(key);

    // Assess
    expect(parsed).toBe(environment);
  });

  it("rejects a key with any single character of the secret changed", () => {
    // Prepare
    const key = generateApiKey("live").plaintext;
    const altered = Array.from({ length: 32 }, (_, offset) => {
      const index = PREFIX_LENGTH + offset;
      return replaceAt(key, index, otherThan(key[index] ?? ""));
    });

    // Act
    const parsed = altered.map(parseApiKey);

    // Assess
    expect(altered.every((candidate) => KEY_SHAPE.test(candidate))).toBe(true);
    expect(parsed).toEqual(altered.map(() => undefined));
  });

  it("rejects a key with two adjacent secret characters swapped", () => {
    // Prepare: find two adjacent different characters of the secret.
    const key = generateApiKey("test").plaintext;
    let index = PREFIX_LENGTH;
    while (key[index] === key[index + 1]) index++;
    const swapped = key.slice(0, index) + (key[index + 1] ?? "") + (key[index] ?? "") + key.slice(index + 2);

    // Act
    const parsed = parseApiKey(swapped);

    // Assess
    expect(swapped).not.toBe(key);
    expect(parsed).toBeUndefined();
  });

  it("rejects a key with any single character of the checksum changed", () => {
    // Prepare
    const key = generateApiKey("test").plaintext;
    const altered = Array.from({ length: 6 }, (_, offset) => {
      const index = key.length - 6 + offset;
      return replaceAt(key, index, otherThan(key[index] ?? ""));
    });

    // Act
    const parsed = altered.map(parseApiKey);

    // Assess
    expect(parsed).toEqual(altered.map(() => undefined));
  });

  it("rejects the other environment's prefix on a key (checksum covers the environment)", () => {
    // Prepare
    const key = generateApiKey("live").plaintext;
    const relabelled = key.replace("ats_live_", "ats_test_");

    // Act
    const parsed = parseApiKey(relabelled);

    // Assess
    expect(parsed).toBeUndefined();
  });

  it.each([
    ["another service prefix", "atx_live_"],
    ["an upper-case service prefix", "ATS_live_"],
    ["an unknown environment", "ats_prod_"],
    ["an upper-case environment", "ats_LIVE_"],
    ["a capitalised environment", "ats_Test_"],
    ["a dash separator", "ats-live-"],
  ])("rejects %s even with a matching checksum", (_label, prefix) => {
    // Prepare: a secret and a checksum that is right for this prefix.
    const secret = generateApiKey("live").plaintext.slice(PREFIX_LENGTH, -6);
    const body = `${prefix}${secret}`;
    const candidate = body + documentedChecksum(body);

    // Act
    const parsed = parseApiKey(candidate);

    // Assess
    expect(parsed).toBeUndefined();
  });

  it("accepts a hand-built key with the documented checksum (the check is the documented one)", () => {
    // Prepare
    const body = `ats_test_${"a1B2c3D4".repeat(4)}`;
    const candidate = body + documentedChecksum(body);

    // Act
    const parsed = parseApiKey(candidate);

    // Assess
    expect(parsed).toBe("test");
  });

  it.each([
    ["truncated by one character", (key: string) => key.slice(0, -1)],
    ["truncated to the secret", (key: string) => key.slice(0, -6)],
    ["with an extra character", (key: string) => `${key}A`],
    ["with the checksum repeated", (key: string) => key + key.slice(-6)],
    ["with a leading space", (key: string) => ` ${key}`],
    ["with a trailing space", (key: string) => `${key} `],
    ["with a trailing newline", (key: string) => `${key}\n`],
    ["with a trailing tab", (key: string) => `${key}\t`],
    ["with a space inside the secret", (key: string) => replaceAt(key, PREFIX_LENGTH + 10, " ")],
    ["with a non-base62 character", (key: string) => replaceAt(key, PREFIX_LENGTH + 3, "-")],
    ["upper-cased", (key: string) => key.toUpperCase()],
    ["empty", () => ""],
  ])("rejects a key %s", (_label, mangle) => {
    // Prepare
    const candidate = mangle(generateApiKey("live").plaintext);

    // Act
    const parsed = parseApiKey(candidate);

    // Assess
    expect(parsed).toBeUndefined();
  });
});

describe("hashApiKey", () => {
  it("is the hex SHA-256 of the UTF-8 text", () => {
    // Prepare: the FIPS 180-2 test vector for "abc".
    const input = "abc";

    // Act
    const hash = hashApiKey(input);

    // Assess
    expect(hash).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("matches node:crypto for a key-shaped string", () => {
    // Prepare
    const input = "ats_live_0123456789abcdefghijABCDEFGHIJxyzXYZ";

    // Act
    const hash = hashApiKey(input);

    // Assess
    expect(hash).toBe(createHash("sha256").update(Buffer.from(input, "utf8")).digest("hex"));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("differs between two keys", () => {
    // Prepare
    const first = generateApiKey("live").plaintext;
    const second = generateApiKey("live").plaintext;

    // Act
    const hashes = [hashApiKey(first), hashApiKey(second)];

    // Assess
    expect(first).not.toBe(second);
    expect(hashes[0]).not.toBe(hashes[1]);
  });
});
