/**
 * How a batch of events is written, decided without I/O (functions/store/events/event-batch-plan.ts): each event's
 * lane and id, repeats within one request, and the BatchWriteItem chunks of 25.
 */
import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../functions/domain/event.js";
import { idTime, isId } from "../../functions/domain/ids.js";
import {
  BATCH_WRITE_LIMIT,
  type BatchEventInput,
  chunked,
  eventFingerprint,
  keyedEventId,
  planEventBatch,
} from "../../functions/store/events/event-batch-plan.js";

const TENANT = { orgId: "org-plan", environment: "live" } as const;
const OCCURRED_AT = "2030-06-01T12:34:56.789Z";

function event(overrides: Partial<NewEvent> = {}): NewEvent {
  return { sessionId: "ses_A", eventType: "tool_call", toolName: "search", ...overrides };
}

function inputs(...items: Omit<BatchEventInput, "index">[]): BatchEventInput[] {
  return items.map((item, index) => ({ index, ...item }));
}

/** A mint of plain ids that says how often it was asked. */
function counterMint() {
  let minted = 0;
  return {
    mint: () => `evt_minted_${++minted}`,
    count: () => minted,
  };
}

describe("planEventBatch lanes", () => {
  it("an event without id or key is plain, with a fresh id from the mint", () => {
    const { mint, count } = counterMint();

    const plan = planEventBatch(TENANT, inputs({ event: event() }, { event: event() }), mint);

    expect(plan.events).toEqual([
      { index: 0, event: event(), id: "evt_minted_1", lane: "plain" },
      { index: 1, event: event(), id: "evt_minted_2", lane: "plain" },
    ]);
    expect(plan.repeats).toEqual([]);
    expect(count()).toBe(2);
  });

  it("an event with the client's own id is keyed under that id, with its fingerprint", () => {
    const { mint, count } = counterMint();
    const own = event({ id: "evt_01J000000000000000000000AA" });

    const plan = planEventBatch(TENANT, inputs({ event: own }), mint);

    expect(plan.events).toEqual([
      { index: 0, event: own, id: own.id, lane: "keyed", fingerprint: eventFingerprint(own) },
    ]);
    expect(count()).toBe(0);
  });

  it("a key with occurredAt is keyed: the id is derived, its time part is occurredAt", () => {
    const { mint, count } = counterMint();
    const withTime = event({ occurredAt: OCCURRED_AT });

    const plan = planEventBatch(TENANT, inputs({ event: withTime, idempotencyKey: "k-1" }), mint);
    const [planned] = plan.events;

    expect(planned).toEqual({
      index: 0,
      event: withTime,
      id: keyedEventId(TENANT, "ses_A", "k-1", OCCURRED_AT),
      lane: "keyed",
      idempotencyKey: "k-1",
      fingerprint: eventFingerprint(withTime),
    });
    expect(isId("event", planned?.id ?? "")).toBe(true);
    expect(idTime(planned?.id ?? "")).toBe(Date.parse(OCCURRED_AT));
    expect(count()).toBe(0);
  });

  it("a key without occurredAt is recorded: a minted id and the key kept for its own record", () => {
    const { mint } = counterMint();

    const plan = planEventBatch(TENANT, inputs({ event: event(), idempotencyKey: "k-2" }), mint);

    expect(plan.events).toEqual([
      {
        index: 0,
        event: event(),
        id: "evt_minted_1",
        lane: "recorded",
        idempotencyKey: "k-2",
        fingerprint: eventFingerprint(event()),
      },
    ]);
  });

  it("keeps each event's request index, lanes mixed", () => {
    const { mint } = counterMint();

    const plan = planEventBatch(
      TENANT,
      inputs(
        { event: event() },
        { event: event({ occurredAt: OCCURRED_AT }), idempotencyKey: "a" },
        { event: event(), idempotencyKey: "b" },
        { event: event({ id: "evt_01J000000000000000000000BB" }) },
      ),
      mint,
    );

    expect(plan.events.map(({ index, lane }) => [index, lane])).toEqual([
      [0, "plain"],
      [1, "keyed"],
      [2, "recorded"],
      [3, "keyed"],
    ]);
  });
});

describe("keyedEventId", () => {
  const base = keyedEventId(TENANT, "ses_A", "key-1", OCCURRED_AT);

  it("is stable across calls", () => {
    expect(keyedEventId(TENANT, "ses_A", "key-1", OCCURRED_AT)).toBe(base);
    const { mint } = counterMint();
    const again = planEventBatch(
      TENANT,
      inputs({ event: event({ occurredAt: OCCURRED_AT }), idempotencyKey: "key-1" }),
      mint,
    );
    expect(again.events[0]?.id).toBe(base);
  });

  it("differs per session, tenant (organisation and environment) and key", () => {
    const others = [
      keyedEventId(TENANT, "ses_B", "key-1", OCCURRED_AT),
      keyedEventId({ ...TENANT, orgId: "org-other" }, "ses_A", "key-1", OCCURRED_AT),
      keyedEventId({ ...TENANT, environment: "test" }, "ses_A", "key-1", OCCURRED_AT),
      keyedEventId(TENANT, "ses_A", "key-2", OCCURRED_AT),
    ];

    expect(new Set([base, ...others]).size).toBe(5);
    // Only the random part differs: the time part is occurredAt for all.
    for (const id of others) expect(idTime(id)).toBe(Date.parse(OCCURRED_AT));
  });

  it("takes its time part from occurredAt: a later occurredAt sorts after", () => {
    const later = keyedEventId(TENANT, "ses_A", "key-1", "2030-06-01T12:34:56.790Z");

    expect(later).not.toBe(base);
    expect(later.slice(0, 14) > base.slice(0, 14)).toBe(true);
    expect(later.slice(14)).toBe(base.slice(14));
  });
});

describe("repeats within one request", () => {
  it("the same key with the same event is a replay of the first (sameEvent), planned once", () => {
    const { mint } = counterMint();
    const withTime = event({ occurredAt: OCCURRED_AT });

    const plan = planEventBatch(
      TENANT,
      inputs({ event: withTime, idempotencyKey: "k" }, { event: { ...withTime }, idempotencyKey: "k" }),
      mint,
    );

    expect(plan.events).toHaveLength(1);
    expect(plan.repeats).toEqual([{ index: 1, of: plan.events[0], sameEvent: true }]);
  });

  it("the same key with another event is a reuse (sameEvent false)", () => {
    const { mint } = counterMint();

    const plan = planEventBatch(
      TENANT,
      inputs(
        { event: event(), idempotencyKey: "k" },
        { event: event({ toolName: "fetch" }), idempotencyKey: "k" },
        { event: event(), idempotencyKey: "k" },
      ),
      mint,
    );

    expect(plan.events).toHaveLength(1);
    expect(plan.repeats).toEqual([
      { index: 1, of: plan.events[0], sameEvent: false },
      { index: 2, of: plan.events[0], sameEvent: true },
    ]);
  });

  it("the same client id twice: a replay when the same event, a reuse when not", () => {
    const { mint } = counterMint();
    const id = "evt_01J000000000000000000000CC";

    const plan = planEventBatch(
      TENANT,
      inputs({ event: event({ id }) }, { event: event({ id }) }, { event: event({ id, eventType: "error" }) }),
      mint,
    );

    expect(plan.events).toHaveLength(1);
    expect(plan.repeats.map(({ index, sameEvent }) => [index, sameEvent])).toEqual([
      [1, true],
      [2, false],
    ]);
  });

  it("the same key on two sessions is two events, not a repeat", () => {
    const { mint } = counterMint();

    const plan = planEventBatch(
      TENANT,
      inputs(
        { event: event({ sessionId: "ses_A", occurredAt: OCCURRED_AT }), idempotencyKey: "k" },
        { event: event({ sessionId: "ses_B", occurredAt: OCCURRED_AT }), idempotencyKey: "k" },
      ),
      mint,
    );

    expect(plan.repeats).toEqual([]);
    expect(plan.events).toHaveLength(2);
    expect(plan.events[0]?.id).not.toBe(plan.events[1]?.id);
  });

  it("a key equal to a client id is not a repeat of it", () => {
    const { mint } = counterMint();
    const id = "evt_01J000000000000000000000DD";

    const plan = planEventBatch(TENANT, inputs({ event: event({ id }) }, { event: event(), idempotencyKey: id }), mint);

    expect(plan.repeats).toEqual([]);
    expect(plan.events.map(({ lane }) => lane)).toEqual(["keyed", "recorded"]);
  });
});

describe("chunked", () => {
  const numbers = (count: number) => Array.from({ length: count }, (_, index) => index);

  it("cuts into runs of 25 by default (BatchWriteItem's limit)", () => {
    expect(BATCH_WRITE_LIMIT).toBe(25);
    expect(chunked(numbers(100)).map((chunk) => chunk.length)).toEqual([25, 25, 25, 25]);
    expect(chunked(numbers(26), 25).map((chunk) => chunk.length)).toEqual([25, 1]);
    expect(chunked(numbers(25), 25).map((chunk) => chunk.length)).toEqual([25]);
    expect(chunked([], 25)).toEqual([]);
  });

  it("keeps every item once, in order", () => {
    expect(chunked(numbers(60), 25).flat()).toEqual(numbers(60));
    expect(chunked(numbers(5), 2)).toEqual([[0, 1], [2, 3], [4]]);
  });

  it("refuses a size that is not a positive integer", () => {
    expect(() => chunked(numbers(3), 0)).toThrow("Chunk size must be a positive integer: 0");
    expect(() => chunked(numbers(3), -1)).toThrow("Chunk size must be a positive integer: -1");
    expect(() => chunked(numbers(3), 2.5)).toThrow("Chunk size must be a positive integer: 2.5");
    expect(() => chunked(numbers(3), Number.NaN)).toThrow("Chunk size must be a positive integer: NaN");
  });
});
