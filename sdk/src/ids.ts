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

/**
 * Monotonic ULIDs under one prefix: in the same millisecond the random part is incremented, so ids sort in the
 * order they were minted. `throughStepBack`: a time earlier than the last (the clock stepped back) keeps counting
 * on from the last id (events); otherwise that time is taken as given (a session replayed at its past start).
 */
function monotonicIds(prefix: string, throughStepBack: boolean): (nowMs: number) => string {
  let lastTime = -1;
  let lastRandom: number[] = [];
  return (nowMs) => {
    const time = Math.floor(nowMs);
    if (time === lastTime || (throughStepBack && time < lastTime)) {
      const next = [...lastRandom];
      for (let i = next.length - 1; i >= 0; i--) {
        const digit = next[i] ?? 0;
        if (digit < 31) {
          next[i] = digit + 1;
          break;
        }
        next[i] = 0;
      }
      lastRandom = next;
    } else {
      lastTime = time;
      const bytes = new Uint8Array(16);
      globalThis.crypto.getRandomValues(bytes);
      lastRandom = Array.from(bytes, (byte) => byte & 31);
    }
    return `${prefix}${timeDigits(lastTime)}${lastRandom.map((digit) => CROCKFORD[digit]).join("")}`;
  };
}

const nextSessionId = monotonicIds("ses_", false);
const nextEventId = monotonicIds("evt_", true);

/**
 * A session id the service accepts as the `id` of `POST /api/sdk/sessions`: `ses_` + ULID, monotonic within this
 * process, so runs started in the same millisecond (a conversation's turns, which the service orders by start and
 * then id) sort in the order they were started.
 */
export function newSessionId(nowMs: number = Date.now()): string {
  return nextSessionId(nowMs);
}

/** A score id the service accepts as a score's `id`: `scr_` + ULID; sending it again replaces that score. */
export function newScoreId(nowMs: number = Date.now()): string {
  return `scr_${timeDigits(nowMs)}${randomDigits(16)}`;
}

/**
 * An event id the service accepts as an event's `id`: `evt_` + a ULID, monotonic within this process (in the
 * same millisecond the random part is incremented), so the events of a run sort in the order they were recorded.
 */
export function newEventId(nowMs: number = Date.now()): string {
  return nextEventId(nowMs);
}

/** A fresh key for `Idempotency-Key` headers. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}
