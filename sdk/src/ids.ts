/**
 * Ids the client mints: session ids in the service's own format (`ses_` + a
 * ULID), so a run has its id before the service has answered, and random keys
 * that make every retry idempotent.
 */

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function randomDigits(count: number): string {
  const bytes = new Uint8Array(count);
  globalThis.crypto.getRandomValues(bytes);
  // 256 is a multiple of 32, so `byte & 31` is uniform.
  return Array.from(bytes, (byte) => CROCKFORD[byte & 31]).join("");
}

function timeDigits(milliseconds: number): string {
  let remaining = Math.max(0, Math.floor(milliseconds));
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[remaining % 32] + out;
    remaining = Math.floor(remaining / 32);
  }
  return out;
}

/** A session id the service accepts as the `id` of `POST /api/sdk/sessions`: `ses_` + ULID (time + 80 random bits). */
export function newSessionId(nowMs: number = Date.now()): string {
  return `ses_${timeDigits(nowMs)}${randomDigits(16)}`;
}

/** A score id the service accepts as a score's `id`: `scr_` + ULID; sending it again replaces that score. */
export function newScoreId(nowMs: number = Date.now()): string {
  return `scr_${timeDigits(nowMs)}${randomDigits(16)}`;
}

let lastEventTime = -1;
let lastEventRandom: number[] = [];

/**
 * An event id the service accepts as an event's `id`: `evt_` + a ULID, monotonic within this process (in the
 * same millisecond the random part is incremented), so the events of a run sort in the order they were recorded.
 */
export function newEventId(nowMs: number = Date.now()): string {
  if (nowMs <= lastEventTime) {
    const next = [...lastEventRandom];
    for (let i = next.length - 1; i >= 0; i--) {
      const digit = next[i] ?? 0;
      if (digit < 31) {
        next[i] = digit + 1;
        break;
      }
      next[i] = 0;
    }
    lastEventRandom = next;
  } else {
    lastEventTime = Math.floor(nowMs);
    const bytes = new Uint8Array(16);
    globalThis.crypto.getRandomValues(bytes);
    lastEventRandom = Array.from(bytes, (byte) => byte & 31);
  }
  return `evt_${timeDigits(lastEventTime)}${lastEventRandom.map((digit) => CROCKFORD[digit]).join("")}`;
}

/** A fresh key for `Idempotency-Key` headers. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}
