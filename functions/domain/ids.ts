/**
 * Service-assigned identifiers: a type prefix plus a ULID (48-bit millisecond
 * timestamp + 80 random bits, Crockford base32), so ids sort by creation time.
 * Within one millisecond the random part is incremented (monotonic ULID), so
 * ids minted by one process never sort out of order.
 */
import { randomBytes } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const TIME_LENGTH = 10;
const RANDOM_LENGTH = 16;
const ULID_PATTERN = "[0-9A-HJKMNP-TV-Z]{26}";

export const ID_PREFIXES = {
  session: "ses",
  event: "evt",
  score: "scr",
  apiKey: "key",
  audit: "aud",
  deletionJob: "del",
  feedbackToken: "fbt",
  alertDestination: "dst",
  alertNotification: "ntf",
  monitor: "mon",
  exportRun: "exp",
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

let lastTime = -1;
let lastRandom: number[] = [];

function encodeTime(time: number): string {
  let remaining = time;
  let out = "";
  for (let i = 0; i < TIME_LENGTH; i++) {
    out = CROCKFORD[remaining % 32] + out;
    remaining = Math.floor(remaining / 32);
  }
  return out;
}

function freshRandom(): number[] {
  // 256 is a multiple of 32, so `byte & 31` is uniform.
  return Array.from(randomBytes(RANDOM_LENGTH), (byte) => byte & 31);
}

function incremented(digits: readonly number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    const digit = next[i] ?? 0;
    if (digit < 31) {
      next[i] = digit + 1;
      return next;
    }
    next[i] = 0;
  }
  // 2^80 ids in one millisecond: astronomically unlikely; start afresh.
  return freshRandom();
}

/** A monotonic ULID for the given time (milliseconds since the epoch). */
export function ulid(now: number = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = incremented(lastRandom);
  } else {
    lastTime = now;
    lastRandom = freshRandom();
  }
  return encodeTime(lastTime) + lastRandom.map((digit) => CROCKFORD[digit]).join("");
}

/**
 * The first ten characters (the time) of every ULID made at `time` (milliseconds since the epoch): ids of that
 * millisecond and later sort at or after it, earlier ones before it (a listing of ids by time, e.g. the export's
 * runs, starts after it).
 */
export function ulidTimePrefix(time: number): string {
  return encodeTime(Math.max(0, Math.floor(time)));
}

/** The time (milliseconds since the epoch) in a ULID's first ten characters; NaN when they are not Crockford base32. */
export function ulidTime(value: string): number {
  let time = 0;
  for (const character of value.slice(0, TIME_LENGTH)) {
    const digit = CROCKFORD.indexOf(character);
    if (digit < 0) return Number.NaN;
    time = time * 32 + digit;
  }
  return time;
}

export function newId(kind: IdKind, now?: number): string {
  return `${ID_PREFIXES[kind]}_${ulid(now)}`;
}

const ID_MATCHERS: Record<IdKind, RegExp> = {
  session: new RegExp(`^${ID_PREFIXES.session}_${ULID_PATTERN}$`),
  event: new RegExp(`^${ID_PREFIXES.event}_${ULID_PATTERN}$`),
  score: new RegExp(`^${ID_PREFIXES.score}_${ULID_PATTERN}$`),
  apiKey: new RegExp(`^${ID_PREFIXES.apiKey}_${ULID_PATTERN}$`),
  audit: new RegExp(`^${ID_PREFIXES.audit}_${ULID_PATTERN}$`),
  deletionJob: new RegExp(`^${ID_PREFIXES.deletionJob}_${ULID_PATTERN}$`),
  feedbackToken: new RegExp(`^${ID_PREFIXES.feedbackToken}_${ULID_PATTERN}$`),
  alertDestination: new RegExp(`^${ID_PREFIXES.alertDestination}_${ULID_PATTERN}$`),
  alertNotification: new RegExp(`^${ID_PREFIXES.alertNotification}_${ULID_PATTERN}$`),
  monitor: new RegExp(`^${ID_PREFIXES.monitor}_${ULID_PATTERN}$`),
  exportRun: new RegExp(`^${ID_PREFIXES.exportRun}_${ULID_PATTERN}$`),
};

/** Whether `value` has the shape of an id of the given kind. */
export function isId(kind: IdKind, value: string): boolean {
  return ID_MATCHERS[kind].test(value);
}

/** The pattern of an id of the given kind (anchored; e.g. for a request schema, which shows it in OpenAPI). */
export function idPattern(kind: IdKind): RegExp {
  return ID_MATCHERS[kind];
}

/**
 * A ULID fixed by its inputs: the time part from `timeMs`, the random part from the first 80 bits of `seed`
 * (e.g. a hash of an idempotency key), so a retry of the same request names the same item.
 */
export function derivedUlid(timeMs: number, seed: Uint8Array): string {
  if (seed.length < 10) throw new Error("A derived ULID needs at least 80 bits of seed");
  let bits = 0n;
  for (const byte of seed.subarray(0, 10)) bits = (bits << 8n) | BigInt(byte);
  let random = "";
  for (let i = 0; i < RANDOM_LENGTH; i++) {
    random = CROCKFORD[Number(bits & 31n)] + random;
    bits >>= 5n;
  }
  return encodeTime(Math.max(0, Math.floor(timeMs))) + random;
}

/** The time (milliseconds since the epoch) of an id of the service's format (`<prefix>_` + ULID). */
export function idTime(id: string): number {
  const ulidPart = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 1 + TIME_LENGTH);
  let time = 0;
  for (const char of ulidPart) {
    const digit = CROCKFORD.indexOf(char);
    if (digit < 0) throw new Error(`Not an id of the service's format: ${id}`);
    time = time * 32 + digit;
  }
  return time;
}
