/**
 * API key format: `ats_<environment>_<secret><checksum>`.
 *
 * - `secret`: 32 base62 characters from the CSPRNG (32 × log2(62) ≈ 190 bits).
 * - `checksum`: 6 base62 characters of the CRC-32 of everything before it, so a
 *   mistyped or truncated key is rejected without a database read.
 *
 * Only the SHA-256 of the whole key is ever stored.
 */
import { createHash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

export const API_KEY_PREFIX = "ats";
export const ENVIRONMENTS = ["live", "test"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}_(live|test)_([0-9A-Za-z]{${SECRET_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`,
);

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: rejecting bytes above it keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function checksumOf(body: string): string {
  let value = crc32(body);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export interface GeneratedApiKey {
  /** The key itself: shown once to its creator, never stored. */
  readonly plaintext: string;
  readonly hash: string;
  /** Last four characters, to help people tell their keys apart. */
  readonly hint: string;
}

export function hashApiKey(plaintext: string): string {
  return createHash("sha256").update(plaintext, "utf8").digest("hex");
}

export function generateApiKey(environment: Environment): GeneratedApiKey {
  const body = `${API_KEY_PREFIX}_${environment}_${randomBase62(SECRET_LENGTH)}`;
  const plaintext = body + checksumOf(body);
  return { plaintext, hash: hashApiKey(plaintext), hint: plaintext.slice(-4) };
}

/**
 * The environment of a well-formed key whose checksum matches, or `undefined`
 * for anything else. Pure: no I/O.
 */
export function parseApiKey(candidate: string): Environment | undefined {
  const match = KEY_PATTERN.exec(candidate);
  if (!match) return undefined;
  const [, environment, secret, checksum] = match;
  const body = `${API_KEY_PREFIX}_${environment}_${secret}`;
  if (checksumOf(body) !== checksum) return undefined;
  return environment === "test" ? "test" : "live";
}
