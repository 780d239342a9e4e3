/**
 * fast-check arbitraries for the HTTP fuzz tests (test/fuzz/http-fuzz.test.ts).
 *
 * Everything generated here is SYMBOLIC and free of secrets: a request names
 * its credential ("the fuzz organisation's API key", "that key truncated to
 * 20 characters", …) and the resources it aims at ("session #3 of the pool")
 * instead of carrying them, and the test file resolves those names against
 * its world just before sending. So a counterexample that fast-check prints
 * never contains an API key or an access token, and it stays small: long
 * strings and deep nesting are described (`{ kind: "repeat", count: 300000 }`)
 * rather than spelled out.
 */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import fc from "fast-check";
import { type Encoding, FILLERS, type Filler, type Signal } from "../../bench/fixtures/inflating-bodies.js";
import { type RouteDefinition, routes } from "../../functions/routes.js";

// ---------------------------------------------------------------------------
// JSON bodies as a small syntax tree, so that the exact text can be controlled
// (number literals such as 1e309 or -0, duplicate keys, `__proto__` keys,
// lone surrogates as escapes, 10,000 levels of nesting) and shown compactly.
// ---------------------------------------------------------------------------

/** A value resolved by the test file: ids of its world (sessions, keys, jobs). */
export type Reference = "session" | "otherOrgSession" | "otherEnvSession" | "keyId" | "jobId" | "eventId" | "scoreId";

export type JsonNode =
  | { readonly kind: "null" }
  | { readonly kind: "boolean"; readonly value: boolean }
  /** A JSON number written exactly as `text` (e.g. "1e309", "-0", "1e-200"). */
  | { readonly kind: "number"; readonly text: string }
  /** A JSON string (lone surrogates and control characters are sent as \u escapes). */
  | { readonly kind: "string"; readonly value: string }
  /** `unit` repeated `count` times, as one JSON string. */
  | { readonly kind: "repeat"; readonly unit: string; readonly count: number }
  | { readonly kind: "array"; readonly items: readonly JsonNode[] }
  /** Entries in order; a key may repeat (JSON.parse keeps the last). */
  | { readonly kind: "object"; readonly entries: readonly (readonly [string, JsonNode])[] }
  /** `depth` nested objects (`{"a":…}`) or arrays (`[…]`) around `leaf`. */
  | { readonly kind: "nest"; readonly container: "object" | "array"; readonly depth: number; readonly leaf: JsonNode }
  /** A reference to the world, sent as a JSON string; `pick` selects among several. */
  | { readonly kind: "ref"; readonly ref: Reference; readonly pick: number };

export type ObjectNode = Extract<JsonNode, { kind: "object" }>;

export type Resolver = (ref: Reference, pick: number) => string;

/** The JSON text of a node (without recursion for `nest`, so 10,000 levels are cheap). */
export function serialize(node: JsonNode, resolve: Resolver): string {
  switch (node.kind) {
    case "null":
      return "null";
    case "boolean":
      return String(node.value);
    case "number":
      return node.text;
    case "string":
      return JSON.stringify(node.value);
    case "repeat":
      return JSON.stringify(node.unit.repeat(node.count));
    case "array":
      return `[${node.items.map((item) => serialize(item, resolve)).join(",")}]`;
    case "object":
      return `{${node.entries.map(([key, value]) => `${JSON.stringify(key)}:${serialize(value, resolve)}`).join(",")}}`;
    case "nest": {
      const leaf = serialize(node.leaf, resolve);
      return node.container === "object"
        ? `${'{"a":'.repeat(node.depth)}${leaf}${"}".repeat(node.depth)}`
        : `${"[".repeat(node.depth)}${leaf}${"]".repeat(node.depth)}`;
    }
    case "ref":
      return JSON.stringify(resolve(node.ref, node.pick));
  }
}

const str = (value: string): JsonNode => ({ kind: "string", value });
const num = (text: string): JsonNode => ({ kind: "number", text });
const obj = (entries: readonly (readonly [string, JsonNode])[]): ObjectNode => ({ kind: "object", entries });
const ref = (reference: Reference) => fc.nat(50).map((pick): JsonNode => ({ kind: "ref", ref: reference, pick }));

// ---------------------------------------------------------------------------
// Strings and numbers that tend to break things.
// ---------------------------------------------------------------------------

/** Single characters and short sequences that are known troublemakers. */
const NASTY_FRAGMENTS = [
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "\t",
  "\n",
  "\r\n",
  "\u0085",
  "\u00a0",
  "\u2028",
  "\u2029",
  "\u200b",
  "\u200d",
  "\u202e",
  "\ufeff",
  "\ufffd",
  "\uffff",
  "\ud800", // lone high surrogate
  "\udfff", // lone low surrogate
  "\udc00\ud800", // reversed pair
  "\ud83d\ude00", // a valid pair (emoji)
  "👩‍👩‍👧‍👦",
  "e\u0301",
  "Z̴̡̪̫̖̥̔̊̓̍̕a̷̢̟̺̼̩͊͗̈́l̴̩̓͛̔͆g̵̡̹͉̈́o",
  "ﷺ",
  "𒐫",
  "#",
  "%",
  "%00",
  "%2F",
  "/",
  "\\",
  "..",
  "'",
  '"',
  "`",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder is the point of this input
  "${x}",
  "{{x}}",
  "<script>",
  "' OR 1=1 --",
  "__proto__",
  "constructor",
  "NaN",
  "null",
  "undefined",
  "ORG#",
  "SESSION#",
  "IDEMPOTENCY#",
] as const;

/** Any string: printable, any code point, control characters, and glued nasty fragments. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "binary-ascii", maxLength: 40 }),
  fc.array(fc.constantFrom(...NASTY_FRAGMENTS), { minLength: 1, maxLength: 6 }).map((parts) => parts.join("")),
);

/** A valid-looking short text (1–40 graphemes, well-formed). */
const shortText: fc.Arbitrary<string> = fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 });

/**
 * Valid names that are members of `Object.prototype` (issue 11: a tool named `constructor` made ending,
 * deleting and erasing fail), and names holding the rollup items' sort-key separators (a failure reason
 * with `#TOOL#` was filed as a tool). Used in every client-supplied name field, so that these names travel
 * through the whole life of a session: events, ending, stats, deletion and erasure.
 */
export const PROTOTYPE_NAMES = [
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "prototype",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
  "__lookupSetter__",
] as const;
const SEPARATOR_NAMES = ["x#TOOL#y", "#FAIL#", "a#DAY#2026-01-01", "(other)", "#"] as const;
const awkwardName: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES), weight: 3 },
  { arbitrary: fc.constantFrom(...SEPARATOR_NAMES), weight: 1 },
);

/** Names from a small pool most of the time, so rollups and agent summaries stay few; sometimes awkward ones. */
const poolName = (pool: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...pool), weight: 8 },
    { arbitrary: shortText, weight: 2 },
    { arbitrary: awkwardName, weight: 2 },
  );

/** Long strings around the limits (256, 1024, 4096, 65,536 characters) and far beyond. */
const longString: fc.Arbitrary<JsonNode> = fc.record({
  kind: fc.constant("repeat" as const),
  unit: fc.constantFrom("a", "é", "😀", "\u0000", "\ud800", "ab\u202e"),
  count: fc.constantFrom(256, 257, 1024, 1025, 4096, 4097, 65_536, 65_537, 200_000),
});

/** Number literals as JSON text, including ones JSON.parse turns into Infinity, -0 or denormals. */
const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "0",
    "-0",
    "-0.0",
    "0e0",
    "1",
    "-1",
    "0.5",
    "1e309",
    "-1e309",
    "1e308",
    "1.7976931348623157e308",
    "1e-200",
    "5e-324",
    "1e-101",
    "1e-100",
    "1e-99",
    "2.5e-7",
    "9007199254740993",
    "123456789012345678901234567890",
    "1e12",
    "1000000000001",
    "1000000",
    "1000000.0000001",
    "31536000001",
    "0.1E1",
    "1E+2",
    "-1e-7",
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => String(value)),
  fc.integer().map(String),
);

/** Keys that prototype pollution, key builders or serializers may mishandle. */
const NASTY_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "",
  " ",
  "a.b",
  "a#b",
  "$where",
  "PK",
  "SK",
  "orgId",
  "ttl",
  "entity",
  "id",
  "\u0000",
  "\ud800",
  "😀",
] as const;

const anyKey: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_KEYS), weight: 3 },
  { arbitrary: anyString, weight: 1 },
);

/** Scalars of every JSON type, including odd numbers and strings. */
const anyScalar: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.constant<JsonNode>({ kind: "null" }),
  fc.boolean().map((value): JsonNode => ({ kind: "boolean", value })),
  numberText.map(num),
  anyString.map(str),
);

/** Small JSON values of any shape (bounded depth and size). */
export const anyJson: fc.Arbitrary<JsonNode> = fc.letrec<{ value: JsonNode }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthIdentifier: "json" },
    { arbitrary: anyScalar, weight: 4 },
    {
      arbitrary: fc.array(tie("value"), { maxLength: 4 }).map((items): JsonNode => ({ kind: "array", items })),
      weight: 1,
    },
    {
      arbitrary: fc.array(fc.tuple(anyKey, tie("value")), { maxLength: 4 }).map((entries): JsonNode => obj(entries)),
      weight: 1,
    },
  ),
})).value;

/** Deep nesting around the 32-level limit and far past it (10,000 levels). */
const deepNest: fc.Arbitrary<JsonNode> = fc.record({
  kind: fc.constant("nest" as const),
  container: fc.constantFrom("object" as const, "array" as const),
  depth: fc.constantFrom(31, 32, 33, 100, 1_000, 10_000),
  leaf: anyScalar,
});

/** A value to put into one field of an otherwise valid body. */
export const badValue: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: anyScalar, weight: 6 },
  { arbitrary: anyJson, weight: 3 },
  { arbitrary: longString, weight: 2 },
  { arbitrary: deepNest, weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom("__proto__", "constructor", "prototype"), anyJson)
      .map(([key, value]) => obj([[key, value]])),
    weight: 1,
  },
  { arbitrary: fc.constantFrom<Reference>("session", "otherOrgSession", "keyId", "jobId").chain(ref), weight: 1 },
);

// ---------------------------------------------------------------------------
// Valid bodies per route, and one-field mutations of them.
// ---------------------------------------------------------------------------

const metadata: fc.Arbitrary<JsonNode> = fc
  .array(fc.tuple(poolName(["plan", "region", "attempt"]), anyScalar), { maxLength: 3 })
  .map((entries) => obj(entries));

const money = fc.double({ min: 0, max: 1_000, noNaN: true }).map((value) => num(String(value)));
const tokens = fc.nat(1_000_000).map((value) => num(String(value)));

function optionalEntries(
  fields: Readonly<Record<string, fc.Arbitrary<JsonNode>>>,
): fc.Arbitrary<(readonly [string, JsonNode])[]> {
  return fc
    .record(fields, { requiredKeys: [] })
    .map((record) =>
      Object.entries(record).flatMap(([key, value]) => (value === undefined ? [] : [[key, value] as const])),
    );
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ulidText: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...CROCKFORD), { minLength: 26, maxLength: 26 })
  .map((chars) => chars.join(""));

/**
 * A session start's client-generated `id`: mostly fresh ones (201), the ids of the run's own sessions (a repeat
 * of the same start is 201, another start 409) and of other tenants' (409), and ids of the wrong shape (400):
 * another kind, lower case, Crockford's excluded letters, prototype names.
 */
const sessionStartId: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: ulidText.map((ulid) => str(`ses_${ulid}`)), weight: 6 },
  { arbitrary: ref("session"), weight: 3 },
  { arbitrary: fc.constantFrom<Reference>("otherOrgSession", "otherEnvSession").chain(ref), weight: 2 },
  {
    arbitrary: fc
      .oneof(
        ulidText.map((ulid) => `evt_${ulid}`),
        ulidText.map((ulid) => `ses_${ulid.toLowerCase()}`),
        ulidText.map((ulid) => `ses_${ulid.slice(0, 25)}U`),
        ulidText.map((ulid) => `ses_${ulid}0`),
        fc.constantFrom("ses_x", "ses_", "", "SES_01KAZ3X8Q9M4T7V2N6P5R1S0WE", ...PROTOTYPE_NAMES),
      )
      .map(str),
    weight: 2,
  },
);

const MINUTE_MS = 60_000;
/** Minutes relative to the service's clock, turned into a timestamp when the request is generated. */
const minutesFromNow = (minutes: number, offset = "Z"): JsonNode => {
  const iso = new Date(Date.now() + minutes * MINUTE_MS).toISOString();
  return str(offset === "Z" ? iso : `${iso.slice(0, 19)}${offset}`);
};

/**
 * A session start's `startedAt`: mostly within the retention (up to 80 days back, or a minute ahead: 201), and
 * ahead of the 5-minute bound, past the 90-day retention, or not an ISO timestamp (400).
 */
const sessionStartedAt: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: fc.integer({ min: -80 * 24 * 60, max: 1 }).map((minutes) => minutesFromNow(minutes)), weight: 6 },
  { arbitrary: fc.integer({ min: -24 * 60, max: -60 }).map((minutes) => minutesFromNow(minutes, "+00:00")), weight: 1 },
  { arbitrary: fc.integer({ min: 10, max: 60 * 24 * 400 }).map((minutes) => minutesFromNow(minutes)), weight: 2 },
  {
    arbitrary: fc.integer({ min: 91 * 24 * 60, max: 60 * 24 * 365 * 60 }).map((minutes) => minutesFromNow(-minutes)),
    weight: 2,
  },
  {
    arbitrary: fc
      .constantFrom("yesterday", "2026-11-20", "2026-02-30T10:00:00Z", "0000-01-01T00:00:00Z", "1e12", "__proto__")
      .map(str),
    weight: 2,
  },
);

/** Conversations the fuzz sessions join (issue 33): `#` and `%` escaped in keys, prototype names only values. */
export const FUZZ_CONVERSATIONS = ["fuzz-chat", "chat#1%", "__proto__"] as const;

const sessionBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(
    poolName(["fuzz run", "nightly"]),
    poolName(["fuzz-agent", "helper-agent"]),
    poolName(["fuzz-user", "customer-1"]),
    fc.option(metadata, { nil: undefined }),
    fc.option(sessionStartId, { nil: undefined, freq: 2 }),
    fc.option(sessionStartedAt, { nil: undefined, freq: 2 }),
    fc.option(poolName(FUZZ_CONVERSATIONS), { nil: undefined, freq: 2 }),
  )
  .map(([name, agentName, userId, meta, id, startedAt, conversationId]) =>
    obj([
      ["name", str(name)],
      ["agentName", str(agentName)],
      ["userId", str(userId)],
      ...(meta === undefined ? [] : [["metadata", meta] as const]),
      ...(id === undefined ? [] : [["id", id] as const]),
      ...(startedAt === undefined ? [] : [["startedAt", startedAt] as const]),
      ...(conversationId === undefined ? [] : [["conversationId", str(conversationId)] as const]),
    ]),
  );

/**
 * A session end's `completedAt` (the fuzz sessions start when the run does): valid ones within the last minute or a
 * minute ahead (200, with a final status), ahead of the 5-minute bound, before the session's start (hours ago),
 * past the retention, or not an ISO timestamp (400). Without a `status` any of them is a 400.
 */
const sessionCompletedAt: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 1 }).map((minutes) => minutesFromNow(minutes)), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 1 }).map((minutes) => minutesFromNow(minutes, "+00:00")), weight: 1 },
  { arbitrary: fc.integer({ min: 10, max: 60 * 24 * 400 }).map((minutes) => minutesFromNow(minutes)), weight: 2 },
  { arbitrary: fc.integer({ min: 60, max: 24 * 60 * 3 }).map((minutes) => minutesFromNow(-minutes)), weight: 2 },
  { arbitrary: fc.integer({ min: 91 * 24 * 60, max: 60 * 24 * 365 * 60 }).map((m) => minutesFromNow(-m)), weight: 1 },
  {
    arbitrary: fc
      .constantFrom("tomorrow", "2026-11-20", "2026-02-30T10:00:00Z", "0000-01-01T00:00:00Z", "1e12", "__proto__")
      .map(str),
    weight: 2,
  },
);

const updateFields: fc.Arbitrary<ObjectNode> = optionalEntries({
  status: fc.constantFrom("completed", "failed").map(str),
  completedAt: sessionCompletedAt,
  success: fc.boolean().map((value): JsonNode => ({ kind: "boolean", value })),
  failureReason: fc.oneof({ arbitrary: shortText, weight: 3 }, { arbitrary: awkwardName, weight: 1 }).map(str),
  estimatedCost: money,
  durationMs: fc.nat(100_000).map((value) => num(String(value))),
  promptTokens: tokens,
  completionTokens: tokens,
  totalTokens: tokens,
  customMetrics: fc
    .array(fc.tuple(poolName(["retries", "latency"]), fc.double({ noNaN: true, min: -1e6, max: 1e6 })), {
      maxLength: 3,
    })
    .map((entries) => obj(entries.map(([name, value]) => [name, num(String(value))]))),
}).map((entries) => obj(entries.length > 0 ? entries : [["durationMs", num("1")]]));

/** An update, or a `completedAt` sent alone (without the final status it needs: 400). */
const updateBody: fc.Arbitrary<ObjectNode> = fc.oneof(
  { arbitrary: updateFields, weight: 9 },
  { arbitrary: sessionCompletedAt.map((completedAt) => obj([["completedAt", completedAt]])), weight: 1 },
);

const EVENT_TYPES = ["tool_call", "llm_decision", "state_change", "error"] as const;

/**
 * Large tool payloads, as a fetched web page would be: past the S3 offload threshold (32 KiB), past the
 * old 128 KiB field cap, and 1 MB (issue 11 accepts any field size within a 5 MiB body).
 */
const largePayload: fc.Arbitrary<JsonNode> = fc
  .constantFrom(4_000, 22_000, 111_000)
  .map((count) => obj([["page", { kind: "repeat", unit: "<p>ok</p>", count }]]));
const toolPayload: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: metadata, weight: 12 },
  { arbitrary: largePayload, weight: 1 },
);
const reasoningText: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: shortText.map(str), weight: 12 },
  { arbitrary: fc.constant<JsonNode>({ kind: "repeat", unit: "because ", count: 5_000 }), weight: 1 },
);

/** A model call's usage: some of the counts, each a valid one (tiny, large, zero). */
const tokenUsage: fc.Arbitrary<JsonNode> = fc
  .record(
    {
      promptTokens: fc.nat(2_000_000),
      completionTokens: fc.nat(100_000),
      totalTokens: fc.nat(2_100_000),
      cacheReadTokens: fc.nat(1_000_000),
      cacheWriteTokens: fc.nat(1_000_000),
      reasoningTokens: fc.nat(50_000),
    },
    { requiredKeys: [] },
  )
  .map((counts) => obj(Object.entries(counts).map(([key, value]) => [key, num(String(value))] as const)));

const eventFields: fc.Arbitrary<(readonly [string, JsonNode])[]> = fc
  .tuple(
    fc.oneof({ arbitrary: ref("session"), weight: 9 }, { arbitrary: ref("otherOrgSession"), weight: 1 }),
    fc.constantFrom(...EVENT_TYPES).map(str),
    optionalEntries({
      toolName: poolName(["search", "fetch", "write_file"]).map(str),
      toolInput: toolPayload,
      toolOutput: toolPayload,
      reasoning: reasoningText,
      alternativesConsidered: fc
        .array(shortText.map(str), { maxLength: 3 })
        .map((items): JsonNode => ({ kind: "array", items })),
      confidence: fc.double({ min: 0, max: 1, noNaN: true }).map((value) => num(String(value))),
      estimatedCost: money,
      model: poolName(["gpt-4o-mini", "claude-sonnet-4-5", "azure/our-deployment", "__proto__"]).map(str),
      usage: tokenUsage,
      // Whole milliseconds up to a year (LIMITS.maxDurationMs), the bounds included.
      durationMs: fc.oneof(fc.nat(120_000), fc.constantFrom(0, 31_536_000_000)).map((value) => num(String(value))),
    }),
  )
  .map(([sessionId, eventType, rest]) => [["sessionId", sessionId], ["eventType", eventType], ...rest]);

const eventBody: fc.Arbitrary<ObjectNode> = eventFields.map((entries) => obj(entries));

/** Per-event idempotency keys: fresh ones, and a few shared ones (replays and mismatches across requests). */
const batchEventKey: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.uuid().map(str),
  fc.constantFrom("shared-event-key-1", "shared-event-key-2").map(str),
);

const batchBody: fc.Arbitrary<ObjectNode> = fc
  .array(fc.tuple(eventFields, fc.option(batchEventKey, { nil: undefined })), { minLength: 1, maxLength: 3 })
  .map((events) =>
    obj([
      [
        "events",
        {
          kind: "array",
          items: events.map(([entries, key]) =>
            obj(key === undefined ? entries : [...entries, ["idempotencyKey", key]]),
          ),
        },
      ],
    ]),
  );

/**
 * A score's value (issue 33): valid ones of each kind (numbers at and past the magnitude bound, tiny ones,
 * booleans, labels of 1 and 200 characters and prototype names), and invalid ones (1e309 parses to Infinity,
 * an empty or 201-character label, null, objects, arrays).
 */
const scoreValue: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((value) => num(String(value))), weight: 4 },
  { arbitrary: fc.boolean().map((value): JsonNode => ({ kind: "boolean", value })), weight: 3 },
  { arbitrary: poolName(["good", "bad", "friendly", ...PROTOTYPE_NAMES]).map(str), weight: 3 },
  {
    arbitrary: fc
      .constantFrom("1e15", "-1e15", "1e16", "1e309", "-1e309", "-0", "1e-9", "1e-10", "1e-200", "NaN", "Infinity")
      .map(num),
    weight: 2,
  },
  {
    arbitrary: fc.constantFrom<JsonNode>(
      str(""),
      { kind: "repeat", unit: "x", count: 200 },
      { kind: "repeat", unit: "😀", count: 201 },
      { kind: "null" },
      obj([["__proto__", num("1")]]),
      { kind: "array", items: [num("1")] },
    ),
    weight: 1,
  },
);

/** A score's `comment`: short text, and around the 4,000-character limit (huge ones included). */
const scoreComment: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: shortText.map(str), weight: 6 },
  {
    arbitrary: fc.constantFrom(4_000, 4_001, 100_000).map((count): JsonNode => ({ kind: "repeat", unit: "c", count })),
    weight: 1,
  },
);

/** A score's own id: fresh ones, a shared one (an upsert across requests), and ids of the wrong shape. */
const scoreClientId: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: ulidText.map((ulid) => str(`scr_${ulid}`)), weight: 4 },
  { arbitrary: ref("scoreId"), weight: 2 },
  { arbitrary: fc.constantFrom("scr_x", "evt_01KAZ3X9B2C3D4E5F6G7H8J9KM", "__proto__").map(str), weight: 1 },
);

/**
 * A score's target: mostly a fuzz session, then a conversation (the fuzz sessions' own, key-like and prototype names,
 * another tenant's key shape), another tenant's session, and the refused shapes: both targets, neither.
 */
const scoreTarget: fc.Arbitrary<(readonly [string, JsonNode])[]> = fc.oneof(
  { arbitrary: ref("session").map((session) => [["sessionId", session] as const]), weight: 8 },
  {
    arbitrary: fc
      .constantFrom(...FUZZ_CONVERSATIONS, "CONVERSATION#ORG#x#ENV#live#c", "%", "constructor")
      .map((conversation) => [["conversationId", str(conversation)] as const]),
    weight: 3,
  },
  {
    arbitrary: fc
      .constantFrom<Reference>("otherOrgSession", "otherEnvSession")
      .chain(ref)
      .map((session) => [["sessionId", session] as const]),
    weight: 1,
  },
  {
    arbitrary: ref("session").map((session) => [
      ["sessionId", session] as const,
      ["conversationId", str(FUZZ_CONVERSATIONS[0])] as const,
    ]),
    weight: 1,
  },
  { arbitrary: fc.constant<(readonly [string, JsonNode])[]>([]), weight: 1 },
);

const scoreFields: fc.Arbitrary<(readonly [string, JsonNode])[]> = fc
  .tuple(
    scoreTarget,
    fc.oneof(
      { arbitrary: poolName(["helpfulness", "resolved", "tone"]), weight: 6 },
      { arbitrary: fc.constantFrom("", "n".repeat(200), "n".repeat(201)), weight: 1 },
    ),
    scoreValue,
    optionalEntries({
      id: scoreClientId,
      eventId: ref("eventId"),
      comment: scoreComment,
      source: fc.constantFrom("api", "sdk", "console", "end_user", "evaluator", "robot").map(str),
      dataType: fc.constantFrom("numeric", "boolean", "categorical", "label").map(str),
    }),
  )
  .map(([target, name, value, rest]) => [...target, ["name", str(name)], ["value", value], ...rest]);

const scoreBody: fc.Arbitrary<ObjectNode> = scoreFields.map((entries) => obj(entries));

const scoreBatchBody: fc.Arbitrary<ObjectNode> = fc
  .array(scoreFields, { minLength: 1, maxLength: 4 })
  .map((scores) => obj([["scores", { kind: "array", items: scores.map((entries) => obj(entries)) }]]));

/** A feedback token's minting (issue 33): the fuzz sessions and others', events, lifetimes and names around their bounds. */
const feedbackTokenBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(
    fc.oneof(
      { arbitrary: ref("session"), weight: 8 },
      { arbitrary: fc.constantFrom<Reference>("otherOrgSession", "otherEnvSession").chain(ref), weight: 2 },
    ),
    optionalEntries({
      eventId: ref("eventId"),
      expiresInSeconds: fc.constantFrom("1", "3600", "86400", "86401", "0", "-1", "1.5", "1e309").map(num),
      names: fc.oneof(
        fc
          .array(poolName(["thumbs", "__proto__", "constructor"]), { minLength: 1, maxLength: 3 })
          .map((names): JsonNode => ({ kind: "array", items: names.map(str) })),
        fc.constantFrom(0, 11).map((count): JsonNode => ({ kind: "array", items: Array(count).fill(str("n")) })),
        fc.constant<JsonNode>({ kind: "array", items: Array(10).fill({ kind: "repeat", unit: "\u0001", count: 30 }) }),
      ),
    }),
  )
  .map(([sessionId, rest]) => obj([["sessionId", sessionId], ...rest]));

/** An end user's score with a feedback token: only a name, a value and a comment (anything else is refused). */
const feedbackBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(
    fc.oneof(
      { arbitrary: poolName(["thumbs", "__proto__", "helpfulness"]), weight: 6 },
      { arbitrary: fc.constantFrom("", "n".repeat(201)), weight: 1 },
    ),
    scoreValue,
    optionalEntries({ comment: scoreComment }),
  )
  .map(([name, value, rest]) => obj([["name", str(name)], ["value", value], ...rest]));

const SCOPES = ["sessions:write", "events:write", "scores:write", "read", "delete"] as const;

const createKeyBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(
    poolName(["fuzz key", "ci"]),
    fc.option(fc.constantFrom("live", "test"), { nil: undefined }),
    fc.option(fc.subarray([...SCOPES], { minLength: 1 }), { nil: undefined }),
  )
  .map(([name, environment, scopes]) =>
    obj([
      ["name", str(name)],
      ...(environment === undefined ? [] : [["environment", str(environment)] as const]),
      ...(scopes === undefined ? [] : [["scopes", { kind: "array", items: scopes.map(str) }] as const]),
    ]),
  );

/**
 * Email addresses an owner might invite (issue 21): fresh valid ones (a person new to the directory, so the
 * invitation is created until the organisation's daily limit answers 429), prototype names, and the
 * look-alikes issue 21 names (item 9), which must be a 400 storing nothing: NUL and other control
 * characters, full-width letters and signs, letters of other scripts, invisible and direction marks.
 */
export const EMAIL_LOOK_ALIKES = [
  "grace\u0000@example.com",
  "grace@example.com\u0000",
  "grace@example.com\nBcc: victim@example.com",
  "grace\u0085@example.com",
  "\uff47\uff52\uff41\uff43\uff45@example.com",
  "grace\uff20example.com",
  "grace@\uff45xample.com",
  "\uff27RACE@EXAMPLE.COM",
  "gr\u0430ce@example.com",
  "grace@ex\u03bfmple.com",
  "gra\u200bce@example.com",
  "grace\u202e@example.com",
  "jos\u00e9@example.com",
  "grace@b\u00fccher.example",
  " grace@example.com",
  "grace@localhost",
  "grace..hopper@example.com",
] as const;

const invitationEmail: fc.Arbitrary<string> = fc.oneof(
  {
    arbitrary: fc
      .tuple(fc.constantFrom("fuzz-invitee", "Fuzz.Invitee", "o'brien+fuzz", ...PROTOTYPE_NAMES), fc.nat(1_000_000_000))
      .map(([local, n]) => `${local}-${n}@example.com`),
    weight: 3,
  },
  { arbitrary: fc.constantFrom(...EMAIL_LOOK_ALIKES), weight: 2 },
);

const invitationBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(invitationEmail, fc.constantFrom("member", "admin", "owner"))
  .map(([email, role]) =>
    obj([
      ["email", str(email)],
      ["role", str(role)],
    ]),
  );

const memberRoleBody: fc.Arbitrary<ObjectNode> = fc
  .constantFrom("member", "admin", "owner")
  .map((role) => obj([["role", str(role)]]));

/** A score configuration (PUT /api/sdk/score-configs/{name}): kinds with fields of the others, bounds crossed, labels repeated. */
const scoreConfigBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(
    fc.constantFrom("numeric", "boolean", "categorical", "label", "__proto__"),
    fc.option(fc.constantFrom("0", "-1", "1e15", "1e16", "1e-12"), { nil: undefined }),
    fc.option(fc.constantFrom("1", "0", "-5", "1e300"), { nil: undefined }),
    fc.option(fc.array(fc.constantFrom("good", "bad", "good", "", "__proto__", "x".repeat(201)), { maxLength: 4 }), {
      nil: undefined,
    }),
  )
  .map(([dataType, min, max, labels]) =>
    obj([
      ["dataType", str(dataType)],
      ...(min === undefined ? [] : [["min", num(min)] as const]),
      ...(max === undefined ? [] : [["max", num(max)] as const]),
      ...(labels === undefined ? [] : [["labels", { kind: "array", items: labels.map(str) } as JsonNode] as const]),
    ]),
  );

/**
 * A monitor definition (POST/PUT /api/alerts/monitors…, the preview): metrics with filters they take and do not,
 * thresholds on either side and out of range, windows off the 5-minute step, destinations unknown or foreign.
 */
const monitorBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(
    fc.constantFrom("failure_rate", "cost", "duration_p95", "tool_failure_rate", "label_share", "score_mean", "p42"),
    fc.subarray(["agent", "user", "model", "tool", "score", "label", "__proto__"] as const, { maxLength: 3 }),
    fc.constantFrom("5", "15", "7", "10080", "10085", "0", "1e3"),
    fc.constantFrom("above", "below", "equal"),
    fc.option(fc.constantFrom("5", "50", "-1", "101", "1e13"), { nil: undefined }),
    fc.constantFrom("10", "0", "100", "-5", "1e12"),
    fc.constantFrom("0", "3", "60", "1441"),
    fc.array(fc.constantFrom("dst_01KAZ2R9Z8Y7X6W5V4T3S2R1Q0", "dst_nope", "__proto__"), { maxLength: 6 }),
  )
  .map(([metric, filterKeys, windowMinutes, comparison, warning, alert, renotify, destinations]) =>
    obj([
      ["name", str("fuzz monitor")],
      ["enabled", { kind: "boolean", value: false }],
      ["metric", str(metric)],
      ["filters", obj(filterKeys.map((key) => [key, str(key === "__proto__" ? "x" : `fuzz-${key}`)] as const))],
      ["windowMinutes", num(windowMinutes)],
      ["comparison", str(comparison)],
      ...(warning === undefined ? [] : [["warningThreshold", num(warning)] as const]),
      ["alertThreshold", num(alert)],
      ["minSessions", num("0")],
      ["noData", str("keep")],
      ["renotifyMinutes", num(renotify)],
      ["notifyOnRecovery", { kind: "boolean", value: true }],
      ["destinationIds", { kind: "array", items: destinations.map(str) } as JsonNode],
    ]),
  );

/**
 * A metrics query (POST /api/sdk/metrics): measures of every source (and none of them), every granularity, groupings
 * and filters the counted items can and cannot answer, awkward names, periods at and past their bounds.
 */
const metricsBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(
    fc.subarray(
      ["sessions", "durationP95", "toolCalls", "modelCost", "scoreMean", "sessionsStarted", "endedDurationP99", "p42"],
      { minLength: 1, maxLength: 4 },
    ),
    fc.constantFrom("day", "hour", "total", "week"),
    fc.subarray(["agent", "user", "model", "tool", "__proto__"] as const, { maxLength: 3 }),
    fc.subarray(["agent", "user", "model", "tool", "score", "__proto__"] as const, { maxLength: 3 }),
    fc.constantFrom("2026-01-01", "2020-01-01", "1970-01-01T00:00:00Z", "2026-02-30", "not a day"),
    fc.option(fc.constantFrom("1", "1000", "1001", "0", "1e309", "-1", "2.5"), { nil: undefined }),
  )
  .map(([measures, granularity, groupBy, filterKeys, from, limit]) =>
    obj([
      ["measures", { kind: "array", items: measures.map(str) } as JsonNode],
      ["granularity", str(granularity)],
      ["groupBy", { kind: "array", items: groupBy.map(str) } as JsonNode],
      [
        "filters",
        obj(
          filterKeys.map(
            (key) =>
              [
                key,
                key === "score"
                  ? str("fuzz-score")
                  : ({ kind: "array", items: [str("__proto__"), str(`fuzz-${key}`)] } as JsonNode),
              ] as const,
          ),
        ),
      ],
      ["from", str(from)],
      ...(limit === undefined ? [] : [["limit", num(limit)] as const]),
    ]),
  );

/** An organisation price (PUT /api/prices/{model}): rates at and past their bounds, days real and not, tiers. */
const priceRate: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.constantFrom("0", "0.075", "1.2", "10000", "10000.5", "-0", "1e-200", "1e309").map(num),
  fc.double({ min: 0, max: 20_000, noNaN: true }).map((value) => num(String(value))),
);
const priceBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(
    fc.constantFrom("2026-12-01", "2000-01-01", "2099-12-31", "2026-02-29", "1999-12-31"),
    priceRate,
    priceRate,
    fc.option(priceRate, { nil: undefined }),
    fc.option(
      fc.array(
        fc.tuple(fc.constantFrom("1", "200000", "0", "1e9"), priceRate).map(([above, input]) =>
          obj([
            ["above", num(above)],
            ["input", input],
          ]),
        ),
        { maxLength: 5 },
      ),
      { nil: undefined },
    ),
  )
  .map(([effectiveFrom, input, output, cacheRead, tiers]) =>
    obj([
      ["effectiveFrom", str(effectiveFrom)],
      ["input", input],
      ["output", output],
      ...(cacheRead === undefined ? [] : [["cacheRead", cacheRead] as const]),
      ...(tiers === undefined ? [] : [["tiers", { kind: "array", items: tiers } as JsonNode] as const]),
    ]),
  );

/**
 * An alert destination (POST /api/alerts/destinations, PUT …/{destinationId}). The URLs are the kinds the delivery rule
 * must refuse (private, loopback, link-local, metadata, plain http, other schemes) and none that would make a request
 * leave the machine: the fuzz never sends a notification anywhere.
 */
const destinationUrl: fc.Arbitrary<JsonNode> = fc
  .constantFrom(
    "https://192.0.2.10/hook",
    "https://10.1.2.3/hook",
    "https://localhost/hook",
    "https://[::1]/hook",
    "https://[::ffff:169.254.169.254]/latest/meta-data",
    "https://169.254.169.254/latest/meta-data",
    "http://127.0.0.1:9/hook",
    "ftp://files.invalid/hook",
    "https://user:pw@192.0.2.10/",
  )
  .map(str);
const destinationBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(
    fc.constantFrom("on-call", "x", "#ALERTDEST#x", ...PROTOTYPE_NAMES),
    fc.constantFrom("eventbridge", "webhook", "slack", "pagerduty"),
    fc.option(destinationUrl, { nil: undefined }),
  )
  .map(([name, kind, url]) =>
    obj([["name", str(name)], ["kind", str(kind)], ...(url === undefined ? [] : [["url", url] as const])]),
  );
const destinationUpdateBody: fc.Arbitrary<ObjectNode> = fc
  .tuple(fc.constantFrom("renamed", ""), fc.option(destinationUrl, { nil: undefined }), fc.boolean())
  .map(([name, url, enabled]) =>
    obj([
      ["name", str(name)],
      ...(url === undefined ? [] : [["url", url] as const]),
      ["enabled", { kind: "boolean", value: enabled } as JsonNode],
    ]),
  );

const rotateKeyBody: fc.Arbitrary<ObjectNode> = fc
  .option(fc.nat(604_800), { nil: undefined })
  .map((overlap) => obj(overlap === undefined ? [] : [["overlapSeconds", num(String(overlap))]]));

// ---------------------------------------------------------------------------
// OTLP trace exports (POST /api/otel/v1/traces), in the OTLP JSON mapping and in protobuf: valid-ish
// requests whose spans share a trace or two (GenAI spans: chat, execute_tool, invoke_agent, …), with one
// part made awkward — ids, times, attribute values of every AnyValue kind, status codes, the envelope.
// ---------------------------------------------------------------------------

const hexOf = (bytes: number): fc.Arbitrary<string> =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((array) => Buffer.from(array).toString("hex"));
const kv = (key: string, value: JsonNode): ObjectNode =>
  obj([
    ["key", str(key)],
    ["value", value],
  ]);
const anyValueOf = (field: string, value: JsonNode): ObjectNode => obj([[field, value]]);
const textValue = (text: string): ObjectNode => anyValueOf("stringValue", str(text));
/** Nanoseconds since the epoch as decimal text, `ms` milliseconds before the request is generated. */
const nanosAgo = (ms: number): string => `${BigInt(Date.now() - ms) * 1_000_000n}`;

/** An id that is not 8 / 16 bytes of hex: wrong length, not hex, base64 (tolerated), all zeros, not a string. */
function oddOtlpId(bytes: number): fc.Arbitrary<JsonNode> {
  return fc.oneof(
    hexOf(bytes).map((hex) => str(hex.toUpperCase())),
    hexOf(bytes).map((hex) => str(Buffer.from(hex, "hex").toString("base64"))),
    hexOf(bytes).map((hex) => str(Buffer.from(hex, "hex").toString("base64url"))),
    fc
      .constantFrom(bytes - 1, bytes + 1, 1, 32)
      .chain(hexOf)
      .map(str),
    hexOf(bytes).map((hex) => str(`${hex.slice(0, -1)}g`)),
    fc.constantFrom("0".repeat(bytes * 2), "", " ".repeat(bytes * 2), "__proto__", "constructor").map(str),
    fc.nat().map((value) => num(String(value))),
    badValue,
  );
}

/** A span time: a JSON number, negative, zero, past 64 bits, beyond the retention or far ahead, {low, high}, … */
const oddNanos: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.integer({ min: 1_000, max: 3_600_000 }).map((ms) => num(String((Date.now() - ms) * 1_000_000))),
  fc
    .constantFrom(
      "-1",
      "0",
      "1",
      "18446744073709551615",
      "18446744073709551616",
      "99999999999999999999",
      "999999999999999999999",
      "1e18",
      "1.5",
      " 1",
      "0x10",
      "",
      "NaN",
    )
    .map(str),
  fc.constantFrom("-1", "0", "1e18", "1e19", "1e300", "1e309", "-0", "1.5", "9007199254740993000000").map(num),
  fc.integer({ min: 91, max: 20_000 }).map((days) => str(nanosAgo(days * 86_400_000))),
  fc.integer({ min: 10, max: 400 * 24 * 60 }).map((minutes) => str(nanosAgo(-minutes * 60_000))),
  fc
    .tuple(fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }), fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }))
    .map(([low, high]) =>
      obj([
        ["low", num(String(low))],
        ["high", num(String(high))],
      ]),
    ),
  badValue,
);

const OTLP_KEYS = ["__proto__", "constructor", "prototype", "toString", "", "a.b", "gen_ai.", "😀"] as const;
const otlpKey: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...OTLP_KEYS), weight: 2 },
  { arbitrary: anyKey, weight: 1 },
);

/** AnyValue nested `depth` levels deep in arrayValue or kvlistValue (the reader stops at 16). */
function nestedAnyValue(depth: number, container: "arrayValue" | "kvlistValue", leaf: JsonNode): JsonNode {
  let node = leaf;
  for (let level = 0; level < depth; level++) {
    const item = container === "arrayValue" ? node : kv("k", node);
    node = anyValueOf(container, obj([["values", { kind: "array", items: [item] }]]));
  }
  return node;
}

/** OTLP AnyValues of every kind, nested, empty, with several fields, or of the wrong type. */
const otlpAnyValue: fc.Arbitrary<JsonNode> = fc.letrec<{ value: JsonNode }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, depthIdentifier: "otlpAnyValue" },
    anyString.map(textValue),
    fc.boolean().map((value) => anyValueOf("boolValue", { kind: "boolean", value })),
    fc
      .oneof(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n }).map((value) => str(String(value))),
        fc.integer().map((value) => num(String(value))),
        fc.constantFrom("12abc", "", "1e3", "-0", "9".repeat(30)).map(str),
        numberText.map(num),
      )
      .map((value) => anyValueOf("intValue", value)),
    fc
      .oneof(numberText.map(num), fc.constantFrom("NaN", "Infinity", "-Infinity", "1.5", "abc", "").map(str))
      .map((value) => anyValueOf("doubleValue", value)),
    fc
      .oneof(
        fc.uint8Array({ maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString("base64")),
        fc.constant("not base64!"),
      )
      .map((value) => anyValueOf("bytesValue", str(value))),
    fc
      .array(tie("value"), { maxLength: 3 })
      .map((items) => anyValueOf("arrayValue", obj([["values", { kind: "array", items }]]))),
    fc
      .array(fc.tuple(otlpKey, tie("value")), { maxLength: 3 })
      .map((entries) =>
        anyValueOf(
          "kvlistValue",
          obj([["values", { kind: "array", items: entries.map(([key, value]) => kv(key, value)) }]]),
        ),
      ),
    fc
      // Past the reader's 16 levels, not much further: fast-check prints a counterexample recursively.
      .tuple(fc.constantFrom(15, 16, 17, 40), fc.constantFrom("arrayValue" as const, "kvlistValue" as const))
      .map(([depth, container]) => nestedAnyValue(depth, container, textValue("leaf"))),
    fc.constant(obj([])),
    fc.tuple(anyString, fc.integer()).map(([text, value]) =>
      obj([
        ["stringValue", str(text)],
        ["intValue", num(String(value))],
      ]),
    ),
    fc
      .tuple(fc.constantFrom("stringValue", "boolValue", "arrayValue", "kvlistValue", "bytesValue"), anyJson)
      .map(([field, value]) => anyValueOf(field, value)),
    anyScalar,
  ),
})).value;

const GENAI_OPERATIONS = [
  "chat",
  "execute_tool",
  "invoke_agent",
  "create_agent",
  "text_completion",
  "generate_content",
  "embeddings",
  "unknown_operation",
  "",
  "__proto__",
] as const;

/** Token counts as the conventions say (int), and as text, negative, fractional, past 64 bits. */
const tokenCount: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: fc.nat(100_000).map((value) => anyValueOf("intValue", str(String(value)))), weight: 4 },
  { arbitrary: fc.nat(100_000).map((value) => anyValueOf("intValue", num(String(value)))), weight: 2 },
  {
    arbitrary: fc
      .constantFrom("-5", "9223372036854775807", "18446744073709551616", "1e9", "abc", "")
      .map((value) => anyValueOf("intValue", str(value))),
    weight: 2,
  },
  {
    arbitrary: fc
      .constantFrom("1.5", "-1", "1e308", "1e309", "1e-300")
      .map((value) => anyValueOf("doubleValue", num(value))),
    weight: 1,
  },
  { arbitrary: fc.constantFrom("120", "lots", "-3").map(textValue), weight: 1 },
  { arbitrary: otlpAnyValue, weight: 1 },
);

/** `gen_ai.tool.call.arguments` / `.result`: JSON text (the conventions), garbage, deep, huge, structured. */
const toolArguments: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: metadata.map((node) => textValue(serialize(node, () => "ref"))), weight: 4 },
  {
    arbitrary: fc
      .constantFrom(
        "{not json",
        "[1,2",
        '"just a string"',
        "null",
        "42",
        '{"__proto__":{"polluted":true}}',
        '{"constructor":{"prototype":{"x":1}}}',
        `${"[".repeat(10_000)}${"]".repeat(10_000)}`,
        '{"a":1e309}',
        '{"a":"\\ud800"}',
      )
      .map(textValue),
    weight: 3,
  },
  {
    arbitrary: fc.constant<JsonNode>(anyValueOf("stringValue", { kind: "repeat", unit: "x", count: 300_000 })),
    weight: 1,
  },
  { arbitrary: otlpAnyValue, weight: 2 },
);

/** A list index in a flattened attribute name: the usual, huge, negative, not a number, a prototype name. */
const flatIndex: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.nat(3).map(String), weight: 6 },
  { arbitrary: fc.constantFrom("999", "999999999", "-1", "1.5", "01", "", "__proto__", "constructor"), weight: 2 },
);

/** A value a dialect reads as text (a name, a role, JSON text), or any AnyValue, or 300,000 characters. */
const dialectText = (pool: readonly string[]): fc.Arbitrary<JsonNode> =>
  fc.oneof(
    { arbitrary: poolName(pool).map(textValue), weight: 5 },
    { arbitrary: otlpAnyValue, weight: 2 },
    { arbitrary: toolArguments, weight: 1 },
  );

const FLAT_MESSAGE_FIELDS = [
  "message.role",
  "message.content",
  "message.contents.0.message_content.text",
  "message.tool_calls.0.tool_call.function.name",
  "message.tool_calls.0.tool_call.function.arguments",
  "message.tool_calls.__proto__.tool_call.id",
  "message.__proto__",
  "constructor.prototype",
  "role",
  "content",
  "a.b.c.d.e.f.g.h.i.j",
] as const;

/** Flattened message lists: OpenInference `llm.input_messages.N.message.*`, Traceloop `gen_ai.prompt.N.*`. */
const flatMessages: fc.Arbitrary<(readonly [string, JsonNode])[]> = fc.array(
  fc
    .tuple(
      fc.constantFrom("llm.input_messages.", "llm.output_messages.", "gen_ai.prompt.", "gen_ai.completion."),
      flatIndex,
      fc.constantFrom(...FLAT_MESSAGE_FIELDS),
      dialectText(["user", "assistant", "tool", "hello", '{"q":"x"}']),
    )
    .map(([prefix, index, field, value]) => [`${prefix}${index}.${field}`, value] as const),
  { maxLength: 4 },
);

/** Attributes under a prefix the dialects read as an object: association properties, telemetry metadata. */
const prefixedEntries: fc.Arbitrary<(readonly [string, JsonNode])[]> = fc.array(
  fc
    .tuple(
      fc.constantFrom(
        "traceloop.association.properties.",
        "ai.telemetry.metadata.",
        "ai.settings.context.",
        "metadata.",
      ),
      fc.oneof(
        { arbitrary: fc.constantFrom("userId", "sessionId", "user_id", "session_id"), weight: 3 },
        { arbitrary: fc.constantFrom(...OTLP_KEYS), weight: 2 },
      ),
      dialectText(["otel-user", "customer-1", "conv-1"]),
    )
    .map(([prefix, key, value]) => [`${prefix}${key}`, value] as const),
  { maxLength: 3 },
);

/**
 * The dialects' own attributes (OpenInference, OpenLLMetry/Traceloop, the Vercel AI SDK; docs/otel.md):
 * span kinds of every dialect (and unknown ones), counts, names and JSON of the wrong type or huge, message
 * lists with odd indexes and prototype names.
 */
const dialectAttributes: fc.Arbitrary<(readonly [string, JsonNode])[]> = fc
  .tuple(
    optionalEntries({
      "openinference.span.kind": dialectText(["LLM", "TOOL", "AGENT", "CHAIN", "EMBEDDING", "llm", "__proto__"]),
      "llm.model_name": dialectText(["gpt-4o"]),
      "llm.token_count.prompt": tokenCount,
      "llm.token_count.completion": tokenCount,
      "llm.token_count.prompt_details.cache_read": tokenCount,
      "llm.invocation_parameters": toolArguments,
      "input.value": toolArguments,
      "output.value": toolArguments,
      "tool.name": dialectText(["search", "constructor"]),
      "session.id": dialectText(["conv-1"]),
      metadata: toolArguments,
      "traceloop.span.kind": dialectText(["workflow", "task", "agent", "tool", "__proto__"]),
      "traceloop.entity.name": dialectText(["otel-agent", "search", "toString"]),
      "traceloop.entity.input": toolArguments,
      "traceloop.entity.output": toolArguments,
      "llm.request.type": dialectText(["chat", "completion", "embedding"]),
      "gen_ai.usage.prompt_tokens": tokenCount,
      "gen_ai.usage.completion_tokens": tokenCount,
      "ai.operationId": dialectText(["ai.generateText", "ai.generateText.doGenerate", "ai.toolCall", "ai.__proto__"]),
      "ai.model.id": dialectText(["gpt-4o"]),
      "ai.usage.promptTokens": tokenCount,
      "ai.usage.completionTokens": tokenCount,
      "ai.usage.inputTokens": tokenCount,
      "ai.usage.inputTokenDetails.cacheReadTokens": tokenCount,
      "ai.toolCall.name": dialectText(["search", "__proto__"]),
      "ai.toolCall.args": toolArguments,
      "ai.toolCall.result": toolArguments,
      "ai.prompt.messages": toolArguments,
      "ai.response.text": toolArguments,
      "ai.response.toolCalls": toolArguments,
      "ai.telemetry.functionId": dialectText(["otel-agent", "prototype"]),
      "enduser.id": dialectText(["otel-user"]),
    }),
    flatMessages,
    prefixedEntries,
  )
  .map(([known, messages, prefixed]) => [...known, ...messages, ...prefixed]);

/** The attributes of a GenAI span of `operation`, with a few awkward extras now and then. */
function genAiAttributes(operation: string): fc.Arbitrary<JsonNode> {
  return fc
    .tuple(
      optionalEntries({
        "gen_ai.request.model": poolName(["gpt-4o", "claude"]).map(textValue),
        "gen_ai.agent.name": poolName(["otel-agent", "fuzz-agent"]).map(textValue),
        "gen_ai.tool.name": poolName(["search", "fetch"]).map(textValue),
        "gen_ai.tool.call.arguments": toolArguments,
        "gen_ai.tool.call.result": toolArguments,
        "gen_ai.usage.input_tokens": tokenCount,
        "gen_ai.usage.output_tokens": tokenCount,
        "gen_ai.usage.cost": tokenCount,
        "user.id": poolName(["otel-user", "customer-1"]).map(textValue),
        "gen_ai.conversation.id": shortText.map(textValue),
      }),
      fc.array(fc.tuple(otlpKey, otlpAnyValue), { maxLength: 2 }),
      // Half the spans speak another dialect too, and half of those name no GenAI operation.
      fc.option(fc.tuple(dialectAttributes, fc.boolean()), { nil: undefined, freq: 2 }),
    )
    .map(([known, extra, dialect]) => ({
      kind: "array",
      items: [
        ...(dialect?.[1] === true ? [] : [kv("gen_ai.operation.name", textValue(operation))]),
        ...known.map(([key, value]) => kv(key, value)),
        ...extra.map(([key, value]) => kv(key, value)),
        ...(dialect?.[0] ?? []).map(([key, value]) => kv(key, value)),
      ],
    }));
}

const otlpStatus: fc.Arbitrary<JsonNode> = fc.oneof(
  { arbitrary: fc.constantFrom("0", "1", "2").map((code) => obj([["code", num(code)]])), weight: 4 },
  {
    arbitrary: fc.tuple(anyString, fc.constantFrom("2", "1")).map(([message, code]) =>
      obj([
        ["code", num(code)],
        ["message", str(message)],
      ]),
    ),
    weight: 2,
  },
  {
    arbitrary: fc
      .oneof(
        fc.constantFrom("3", "-1", "2.5", "1e309", "99999999999").map(num),
        fc.constantFrom("STATUS_CODE_ERROR", "STATUS_CODE_OK", "STATUS_CODE_UNSET", "ERROR", "__proto__", "2").map(str),
        badValue,
      )
      .map((code) => obj([["code", code]])),
    weight: 3,
  },
  { arbitrary: badValue, weight: 1 },
);

/** Span events: exceptions (which become error events) and others, some with odd times. */
const spanEvents: fc.Arbitrary<JsonNode> = fc
  .array(
    fc
      .tuple(fc.constantFrom("exception", "log", ""), fc.integer({ min: 0, max: 60_000 }), anyString)
      .map(([name, ago, message]) =>
        obj([
          ["name", str(name)],
          ["timeUnixNano", str(nanosAgo(ago))],
          [
            "attributes",
            {
              kind: "array",
              items: [kv("exception.type", textValue("Error")), kv("exception.message", textValue(message))],
            },
          ],
        ]),
      ),
    { maxLength: 2 },
  )
  .map((items): JsonNode => ({ kind: "array", items }));

/** The spans of one request: one or two traces, each with a root some of the time, children under it. */
const otlpSpans: fc.Arbitrary<ObjectNode[]> = fc
  .tuple(
    fc.array(fc.tuple(hexOf(16), hexOf(8), fc.boolean()), { minLength: 1, maxLength: 2 }),
    fc.array(
      fc.record({
        trace: fc.nat(),
        operation: fc.constantFrom(...GENAI_OPERATIONS),
        startAgoMs: fc.integer({ min: 2_000, max: 3_600_000 }),
        durationMs: fc.nat(1_500),
        spanId: hexOf(8),
        status: fc.option(otlpStatus, { nil: undefined }),
        events: fc.option(spanEvents, { nil: undefined, freq: 4 }),
        name: poolName(["chat gpt-4o", "execute_tool search", "invoke_agent otel-agent"]),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .chain(([traces, children]) => {
    const spans = children.map((child) => {
      const [traceId, rootId] = traces[child.trace % traces.length] ?? ["", "", false];
      return genAiAttributes(child.operation).map((attributes) =>
        obj([
          ["traceId", str(traceId)],
          ["spanId", str(child.spanId)],
          ["parentSpanId", str(rootId)],
          ["name", str(child.name)],
          ["kind", num("1")],
          ["startTimeUnixNano", str(nanosAgo(child.startAgoMs))],
          ["endTimeUnixNano", str(nanosAgo(child.startAgoMs - child.durationMs))],
          ["attributes", attributes],
          ...(child.status === undefined ? [] : [["status", child.status] as const]),
          ...(child.events === undefined ? [] : [["events", child.events] as const]),
        ]),
      );
    });
    const roots = traces
      .filter(([, , withRoot]) => withRoot)
      .map(([traceId, rootId]) =>
        fc.tuple(genAiAttributes("invoke_agent"), otlpStatus).map(([attributes, status]) =>
          obj([
            ["traceId", str(traceId)],
            ["spanId", str(rootId)],
            ["parentSpanId", str("")],
            ["name", str("invoke_agent otel-agent")],
            ["startTimeUnixNano", str(nanosAgo(3_700_000))],
            ["endTimeUnixNano", str(nanosAgo(1_000))],
            ["attributes", attributes],
            ["status", status],
          ]),
        ),
      );
    return fc.tuple(...spans, ...roots);
  });

function exportRequestOf(spans: readonly JsonNode[], resource: JsonNode = otlpResource): ObjectNode {
  return obj([
    [
      "resourceSpans",
      {
        kind: "array",
        items: [
          obj([
            ["resource", obj([["attributes", resource]])],
            [
              "scopeSpans",
              {
                kind: "array",
                items: [
                  obj([
                    ["scope", obj([["name", str("fuzz.instrumentation")]])],
                    ["spans", { kind: "array", items: spans }],
                  ]),
                ],
              },
            ],
          ]),
        ],
      },
    ],
  ]);
}

const otlpResource: JsonNode = { kind: "array", items: [kv("service.name", textValue("otel-fuzz"))] };

/** A valid-ish OTLP JSON export (every span readable; some may still be refused by the service). */
const otlpBody: fc.Arbitrary<ObjectNode> = otlpSpans.map((spans) => exportRequestOf(spans));

const SPAN_FIELDS = [
  "traceId",
  "spanId",
  "parentSpanId",
  "name",
  "startTimeUnixNano",
  "endTimeUnixNano",
  "attributes",
  "events",
  "status",
  "kind",
  "flags",
  "links",
] as const;

/** An awkward value for one span field. */
function oddSpanField(field: string): fc.Arbitrary<JsonNode> {
  switch (field) {
    case "traceId":
      return oddOtlpId(16);
    case "spanId":
    case "parentSpanId":
      return oddOtlpId(8);
    case "startTimeUnixNano":
    case "endTimeUnixNano":
      return oddNanos;
    case "attributes":
      return fc.oneof(
        fc
          .array(fc.tuple(otlpKey, otlpAnyValue), { minLength: 1, maxLength: 4 })
          .map((entries): JsonNode => ({ kind: "array", items: entries.map(([key, value]) => kv(key, value)) })),
        fc.array(anyJson, { minLength: 1, maxLength: 2 }).map((items): JsonNode => ({ kind: "array", items })),
        fc.constantFrom(...GENAI_OPERATIONS).chain(genAiAttributes),
        badValue,
      );
    case "status":
      return otlpStatus;
    case "events":
      return fc.oneof(
        spanEvents,
        oddNanos.map(
          (time): JsonNode => ({
            kind: "array",
            items: [
              obj([
                ["name", str("exception")],
                ["timeUnixNano", time],
              ]),
            ],
          }),
        ),
        badValue,
      );
    default:
      return badValue;
  }
}

/**
 * One item of an OTLP export's list (a span, a log record) with one field awkward (`oddField`), removed, or an unknown
 * one added; `requestOf` wraps the list in its envelope again.
 */
function oneItemAwkward(
  items: readonly ObjectNode[],
  fields: readonly string[],
  oddField: (field: string) => fc.Arbitrary<JsonNode>,
  requestOf: (items: readonly JsonNode[]) => ObjectNode,
): fc.Arbitrary<MutatedBody> {
  return fc
    .tuple(
      fc.nat(items.length - 1),
      fc.constantFrom(...fields),
      fc.constantFrom("set", "remove", "extra") as fc.Arbitrary<"set" | "remove" | "extra">,
    )
    .chain(([index, field, op]) =>
      (op === "extra" ? fc.tuple(anyKey, anyJson) : fc.tuple(fc.constant(field), oddField(field))).map(
        ([name, value]): MutatedBody => {
          const item = items[index] as ObjectNode;
          const changed =
            op === "set"
              ? withField(item, name, value)
              : op === "remove"
                ? obj(item.entries.filter(([key]) => key !== name))
                : obj([...item.entries, [name, value]]);
          return {
            mutation: { op: "batch-event", index, inner: { op, field: name } },
            node: requestOf(items.map((other, position) => (position === index ? changed : other))),
          };
        },
      ),
    );
}

/** A span or log record with small attributes and body (its first attribute kept, its body a short text). */
function smallCopy(node: ObjectNode): ObjectNode {
  return obj(
    node.entries.map(([key, value]) => {
      if (key === "attributes" && value.kind === "array")
        return [key, { kind: "array", items: value.items.slice(0, 1) }];
      if (key === "body") return [key, textValue("hello")];
      return [key, value];
    }),
  );
}

/**
 * At and past the 1,000 items (spans, log records) a request may hold: copies of the first item, its attributes and
 * body made small, lest a huge value copied 1,000 times fill the fuzzer's memory (one item copied: stored once).
 */
function itemsAtTheLimit(
  items: readonly ObjectNode[],
  listName: string,
  requestOf: (items: readonly JsonNode[]) => ObjectNode,
): fc.Arbitrary<MutatedBody> {
  return fc.constantFrom(1_000, 1_001).map(
    (count): MutatedBody => ({
      mutation: { op: "set", field: `${listName} (${count} copies)` },
      node: requestOf(Array.from({ length: count }, () => smallCopy(items[0] as ObjectNode))),
    }),
  );
}

/** A span of a valid-ish export with one field awkward (or removed, or an unknown one added). */
const otlpSpanMutation: fc.Arbitrary<MutatedBody> = otlpSpans.chain((spans) =>
  oneItemAwkward(spans, SPAN_FIELDS, oddSpanField, (items) => exportRequestOf(items)),
);

/** The envelope made awkward: resource attributes, scopeSpans or spans not arrays, spans that are not objects. */
const otlpEnvelopeMutation: fc.Arbitrary<MutatedBody> = otlpSpans.chain((spans) =>
  fc.oneof(
    oddSpanField("attributes").map(
      (resource): MutatedBody => ({
        mutation: { op: "set", field: "resource.attributes" },
        node: exportRequestOf(spans, resource),
      }),
    ),
    badValue.map(
      (value): MutatedBody => ({
        mutation: { op: "set", field: "resourceSpans[0]" },
        node: obj([["resourceSpans", { kind: "array", items: [value] }]]),
      }),
    ),
    badValue.map(
      (value): MutatedBody => ({
        mutation: { op: "set", field: "scopeSpans" },
        node: obj([["resourceSpans", { kind: "array", items: [obj([["scopeSpans", value]])] }]]),
      }),
    ),
    badValue.map(
      (value): MutatedBody => ({
        mutation: { op: "set", field: "spans" },
        node: obj([
          [
            "resourceSpans",
            { kind: "array", items: [obj([["scopeSpans", { kind: "array", items: [obj([["spans", value]])] }]])] },
          ],
        ]),
      }),
    ),
    fc.array(anyScalar, { minLength: 1, maxLength: 3 }).map(
      (items): MutatedBody => ({
        mutation: { op: "set", field: "spans[]" },
        node: exportRequestOf([...spans, ...items]),
      }),
    ),
    itemsAtTheLimit(spans, "spans", (items) => exportRequestOf(items)),
  ),
);

/** The JSON body of an OTLP export: valid-ish, one span field awkward, the envelope awkward, or any mutation. */
function otlpMutatedBody(): fc.Arbitrary<MutatedBody> {
  return fc.oneof(
    { arbitrary: otlpBody.map((node): MutatedBody => ({ mutation: { op: "none" }, node })), weight: 3 },
    { arbitrary: otlpSpanMutation, weight: 5 },
    { arbitrary: otlpEnvelopeMutation, weight: 2 },
    { arbitrary: otlpBody.chain((body) => mutateObject(body, ["resourceSpans"])), weight: 2 },
  );
}

/** What a protobuf export is built from (ids of any length, times as fixed64, attributes nested `nest` deep). */
interface ProtoSpan {
  readonly traceId: Uint8Array;
  readonly spanId: Uint8Array;
  readonly parentSpanId: Uint8Array;
  readonly name: string;
  readonly startNanos: bigint;
  readonly endNanos: bigint;
  readonly operation: string;
  readonly tokens: bigint;
  readonly nest: number;
  readonly statusCode: number;
}

function writeKeyValue(writer: BinaryWriter, key: string, value: (writer: BinaryWriter) => void): void {
  writer.tag(9, WireType.LengthDelimited).fork();
  writer.tag(1, WireType.LengthDelimited).string(key);
  writer.tag(2, WireType.LengthDelimited).fork();
  value(writer);
  writer.join();
  writer.join();
}

/** opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest, field numbers from the official protos. */
export function encodeProtoExport(spans: readonly ProtoSpan[]): Uint8Array {
  const writer = new BinaryWriter();
  writer.tag(1, WireType.LengthDelimited).fork(); // resource_spans
  writer.tag(1, WireType.LengthDelimited).fork(); // resource
  writer.tag(1, WireType.LengthDelimited).fork(); // attributes
  writer.tag(1, WireType.LengthDelimited).string("service.name");
  writer.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string("otel-fuzz").join();
  writer.join();
  writer.join();
  writer.tag(2, WireType.LengthDelimited).fork(); // scope_spans
  for (const span of spans) {
    writer.tag(2, WireType.LengthDelimited).fork();
    writer.tag(1, WireType.LengthDelimited).bytes(span.traceId);
    writer.tag(2, WireType.LengthDelimited).bytes(span.spanId);
    if (span.parentSpanId.length > 0) writer.tag(4, WireType.LengthDelimited).bytes(span.parentSpanId);
    writer.tag(5, WireType.LengthDelimited).string(span.name);
    writer.tag(7, WireType.Bit64).fixed64(span.startNanos);
    writer.tag(8, WireType.Bit64).fixed64(span.endNanos);
    writeKeyValue(writer, "gen_ai.operation.name", (inner) =>
      inner.tag(1, WireType.LengthDelimited).string(span.operation),
    );
    writeKeyValue(writer, "gen_ai.usage.input_tokens", (inner) => inner.tag(3, WireType.Varint).int64(span.tokens));
    writeKeyValue(writer, "__proto__", (inner) => {
      for (let level = 0; level < span.nest; level++)
        inner.tag(5, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).fork();
      inner.tag(2, WireType.Varint).bool(true);
      for (let level = 0; level < span.nest; level++) inner.join().join();
    });
    writer.tag(15, WireType.LengthDelimited).fork().tag(3, WireType.Varint).int32(span.statusCode).join();
    writer.join();
  }
  writer.join();
  writer.join();
  return writer.finish();
}

const protoSpan: fc.Arbitrary<ProtoSpan> = fc.record({
  traceId: fc.oneof(
    { arbitrary: fc.uint8Array({ minLength: 16, maxLength: 16 }), weight: 6 },
    { arbitrary: fc.uint8Array({ maxLength: 20 }), weight: 1 },
  ),
  spanId: fc.oneof(
    { arbitrary: fc.uint8Array({ minLength: 8, maxLength: 8 }), weight: 6 },
    { arbitrary: fc.uint8Array({ maxLength: 12 }), weight: 1 },
  ),
  parentSpanId: fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ minLength: 8, maxLength: 8 })),
  name: anyString,
  startNanos: fc.oneof(
    { arbitrary: fc.integer({ min: 2_000, max: 3_600_000 }).map((ms) => BigInt(nanosAgo(ms))), weight: 6 },
    { arbitrary: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), weight: 1 },
  ),
  endNanos: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 1_000 }).map((ms) => BigInt(nanosAgo(ms))), weight: 6 },
    { arbitrary: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), weight: 1 },
  ),
  operation: fc.constantFrom(...GENAI_OPERATIONS),
  tokens: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  // Array levels around the span reader's 16 and the decoder's 64 messages (a level is 2 messages, 5 above it).
  nest: fc.constantFrom(0, 0, 0, 0, 0, 1, 16, 17, 29, 30, 100),
  statusCode: fc.constantFrom(0, 1, 2, 3, -1, 2 ** 31 - 1),
});

/** How a protobuf body is damaged: not at all, cut short, a byte changed, garbage appended, a bogus length. */
const protobufDamage = fc.oneof(
  { arbitrary: fc.constant({ op: "none" as const, at: 0, byte: 0 }), weight: 6 },
  {
    arbitrary: fc.record({
      op: fc.constantFrom("truncate" as const, "flip" as const, "append" as const, "prefix" as const),
      at: fc.nat(),
      byte: fc.nat(255),
    }),
    weight: 3,
  },
);

function damaged(bytes: Buffer, damage: { op: string; at: number; byte: number }): BodySpec {
  const at = bytes.length === 0 ? 0 : damage.at % bytes.length;
  let result: Buffer = bytes;
  if (damage.op === "truncate") result = bytes.subarray(0, at);
  if (damage.op === "flip" && bytes.length > 0) {
    result = Buffer.from(bytes);
    result[at] = damage.byte;
  }
  if (damage.op === "append") result = Buffer.concat([bytes, Buffer.from([damage.byte, 0xff, 0xff, 0xff, 0x0f])]);
  // A length-delimited field 1 whose length runs far past the end.
  if (damage.op === "prefix") result = Buffer.concat([Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), bytes]);
  return { kind: "bytes", hex: result.toString("hex") };
}

/** A protobuf OTLP export, intact or damaged: cut short, a byte changed, garbage appended, a bogus length. */
export const otlpProtobufBody: fc.Arbitrary<BodySpec> = fc
  .tuple(fc.array(protoSpan, { maxLength: 4 }), protobufDamage)
  .map(([spans, damage]): BodySpec => damaged(Buffer.from(encodeProtoExport(spans)), damage));

// ---------------------------------------------------------------------------
// OTLP log exports (POST /api/otel/v1/logs): GenAI event log records (the messages of a model call, tied to
// its span) and others (refused one by one), in JSON and protobuf, with one part made awkward.
// ---------------------------------------------------------------------------

const LOG_EVENTS = [
  "gen_ai.user.message",
  "gen_ai.system.message",
  "gen_ai.assistant.message",
  "gen_ai.tool.message",
  "gen_ai.choice",
  "gen_ai.client.inference.operation.details",
  "gen_ai.other",
  "",
  "__proto__",
  "constructor",
] as const;

/** A log record's body: a message (`content`, `tool_calls`, `message`…), any AnyValue, or 300,000 characters. */
const logBody: fc.Arbitrary<JsonNode> = fc.oneof(
  {
    arbitrary: fc
      .array(
        fc.tuple(
          fc.constantFrom("content", "role", "tool_calls", "message", "finish_reason", "index", "__proto__"),
          fc.oneof(dialectText(["hello", "assistant", "stop"]), otlpAnyValue),
        ),
        { maxLength: 3 },
      )
      .map((entries) =>
        anyValueOf("kvlistValue", obj([["values", { kind: "array", items: entries.map(([k, v]) => kv(k, v)) }]])),
      ),
    weight: 4,
  },
  { arbitrary: otlpAnyValue, weight: 2 },
  { arbitrary: toolArguments, weight: 1 },
);

/** The log records of one request, most on a span of one or two traces. */
const otlpLogRecords: fc.Arbitrary<ObjectNode[]> = fc
  .tuple(
    fc.array(fc.tuple(hexOf(16), hexOf(8)), { minLength: 1, maxLength: 2 }),
    fc.array(
      fc.record({
        span: fc.nat(),
        event: fc.constantFrom(...LOG_EVENTS),
        asField: fc.boolean(),
        agoMs: fc.integer({ min: 1_000, max: 3_600_000 }),
        body: fc.option(logBody, { nil: undefined, freq: 6 }),
        details: optionalEntries({
          "gen_ai.input.messages": toolArguments,
          "gen_ai.output.messages": toolArguments,
          "gen_ai.system_instructions": toolArguments,
        }),
        extra: fc.array(fc.tuple(otlpKey, otlpAnyValue), { maxLength: 2 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([spans, records]) =>
    records.map((record) => {
      const [traceId, spanId] = spans[record.span % spans.length] ?? ["", ""];
      const attributes = [
        ...(record.asField ? [] : [kv("event.name", textValue(record.event))]),
        ...record.details.map(([key, value]) => kv(key, value)),
        ...record.extra.map(([key, value]) => kv(key, value)),
      ];
      return obj([
        ["timeUnixNano", str(nanosAgo(record.agoMs))],
        ["observedTimeUnixNano", str(nanosAgo(record.agoMs))],
        ["severityNumber", num("9")],
        ["traceId", str(traceId)],
        ["spanId", str(spanId)],
        ...(record.asField ? [["eventName", str(record.event)] as const] : []),
        ...(record.body === undefined ? [] : [["body", record.body] as const]),
        ["attributes", { kind: "array", items: attributes }],
      ]);
    }),
  );

function logsRequestOf(records: readonly JsonNode[]): ObjectNode {
  return obj([
    [
      "resourceLogs",
      {
        kind: "array",
        items: [
          obj([
            ["resource", obj([["attributes", otlpResource]])],
            [
              "scopeLogs",
              {
                kind: "array",
                items: [
                  obj([
                    ["scope", obj([["name", str("fuzz.instrumentation")]])],
                    ["logRecords", { kind: "array", items: records }],
                  ]),
                ],
              },
            ],
          ]),
        ],
      },
    ],
  ]);
}

/** A valid-ish OTLP JSON log export. */
const otlpLogsBody: fc.Arbitrary<ObjectNode> = otlpLogRecords.map((records) => logsRequestOf(records));

const LOG_FIELDS = [
  "traceId",
  "spanId",
  "timeUnixNano",
  "observedTimeUnixNano",
  "eventName",
  "body",
  "attributes",
  "severityNumber",
  "severityText",
  "flags",
] as const;

function oddLogField(field: string): fc.Arbitrary<JsonNode> {
  switch (field) {
    case "traceId":
      return oddOtlpId(16);
    case "spanId":
      return oddOtlpId(8);
    case "timeUnixNano":
    case "observedTimeUnixNano":
      return oddNanos;
    case "eventName":
      return fc.oneof(fc.constantFrom(...LOG_EVENTS).map(str), badValue);
    case "body":
      return fc.oneof(logBody, badValue);
    case "attributes":
      return oddSpanField("attributes");
    default:
      return badValue;
  }
}

/** A log record with one field awkward (or removed, or an unknown one added), or the envelope awkward. */
const otlpLogsMutation: fc.Arbitrary<MutatedBody> = otlpLogRecords.chain((records) =>
  fc.oneof(
    oneItemAwkward(records, LOG_FIELDS, oddLogField, logsRequestOf),
    badValue.map(
      (value): MutatedBody => ({
        mutation: { op: "set", field: "scopeLogs" },
        node: obj([["resourceLogs", { kind: "array", items: [obj([["scopeLogs", value]])] }]]),
      }),
    ),
    fc.array(anyScalar, { minLength: 1, maxLength: 3 }).map(
      (items): MutatedBody => ({
        mutation: { op: "set", field: "logRecords[]" },
        node: logsRequestOf([...records, ...items]),
      }),
    ),
    itemsAtTheLimit(records, "logRecords", logsRequestOf),
  ),
);

function otlpLogsMutatedBody(): fc.Arbitrary<MutatedBody> {
  return fc.oneof(
    { arbitrary: otlpLogsBody.map((node): MutatedBody => ({ mutation: { op: "none" }, node })), weight: 3 },
    { arbitrary: otlpLogsMutation, weight: 5 },
    { arbitrary: otlpLogsBody.chain((body) => mutateObject(body, ["resourceLogs"])), weight: 2 },
  );
}

/** opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest of GenAI event records on one span. */
export function encodeProtoLogs(
  records: readonly { traceId: Uint8Array; spanId: Uint8Array; event: string; nanos: bigint; content: string }[],
): Uint8Array {
  const writer = new BinaryWriter();
  writer.tag(1, WireType.LengthDelimited).fork(); // resource_logs
  writer.tag(2, WireType.LengthDelimited).fork(); // scope_logs
  for (const record of records) {
    writer.tag(2, WireType.LengthDelimited).fork(); // log_records
    writer.tag(1, WireType.Bit64).fixed64(record.nanos);
    writer.tag(5, WireType.LengthDelimited).fork(); // body: kvlist { content }
    writer.tag(6, WireType.LengthDelimited).fork();
    writeKeyValue(writer, "content", (inner) => inner.tag(1, WireType.LengthDelimited).string(record.content));
    writer.join();
    writer.join();
    writeKeyValue(writer, "__proto__", (inner) => inner.tag(2, WireType.Varint).bool(true));
    writer.tag(9, WireType.LengthDelimited).bytes(record.traceId);
    writer.tag(10, WireType.LengthDelimited).bytes(record.spanId);
    writer.tag(12, WireType.LengthDelimited).string(record.event);
    writer.join();
  }
  writer.join();
  writer.join();
  return writer.finish();
}

/** A protobuf OTLP log export, intact or damaged. */
const otlpProtobufLogs: fc.Arbitrary<BodySpec> = fc
  .tuple(
    fc.array(
      fc.record({
        traceId: fc.oneof(
          { arbitrary: fc.uint8Array({ minLength: 16, maxLength: 16 }), weight: 6 },
          { arbitrary: fc.uint8Array({ maxLength: 20 }), weight: 1 },
        ),
        spanId: fc.oneof(
          { arbitrary: fc.uint8Array({ minLength: 8, maxLength: 8 }), weight: 6 },
          { arbitrary: fc.uint8Array({ maxLength: 12 }), weight: 1 },
        ),
        event: fc.constantFrom(...LOG_EVENTS),
        nanos: fc.oneof(
          { arbitrary: fc.integer({ min: 1_000, max: 3_600_000 }).map((ms) => BigInt(nanosAgo(ms))), weight: 6 },
          { arbitrary: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), weight: 1 },
        ),
        content: anyString,
      }),
      { maxLength: 4 },
    ),
    protobufDamage,
  )
  .map(([records, damage]): BodySpec => damaged(Buffer.from(encodeProtoLogs(records)), damage));

const OTLP_CONTENT_TYPES = [
  "application/x-protobuf",
  "application/protobuf",
  "APPLICATION/X-PROTOBUF",
  "application/x-protobuf; charset=binary",
  "application/json; charset=utf-8",
  "application/grpc",
  "application/octet-stream",
  "application/json+protobuf",
  "text/plain",
  "",
  null,
] as const;

/**
 * OTLP trace and log exports: a JSON body (as `otlpMutatedBody`, `otlpLogsMutatedBody`) or a protobuf one, sent as JSON / protobuf or with
 * another content type, gzip-compressed more often than elsewhere, mostly with the fuzz key, sometimes with
 * keys of other tenants (each stores in its own tenant only) or without the scope.
 */
export function otlpExport(route: RouteDefinition): fc.Arbitrary<FuzzRequest> {
  const logs = route.id === "ExportLogs";
  return fc
    .tuple(
      baseRequest(route),
      fc.oneof(
        {
          arbitrary: (logs ? otlpLogsMutatedBody() : otlpMutatedBody()).map((mutated) => ({
            body: { kind: "json" as const, node: mutated.node } as BodySpec,
            type: "application/json" as string | null,
            mutation: `otlp json ${describeMutation(mutated.mutation)}`,
          })),
          weight: 3,
        },
        {
          arbitrary: (logs ? otlpProtobufLogs : otlpProtobufBody).map((body) => ({
            body,
            type: "application/x-protobuf" as string | null,
            mutation: "otlp protobuf",
          })),
          weight: 2,
        },
        {
          arbitrary: inflatingEncoding(logs ? "logs" : "traces").map((inflating) => ({
            body: { kind: "none" } as BodySpec,
            type: (inflating.kind === "inflating" && inflating.encoding === "json"
              ? "application/json"
              : "application/x-protobuf") as string | null,
            mutation: "otlp inflating gzip",
            inflating,
          })),
          weight: 1,
        },
      ),
      fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 4 },
        { arbitrary: fc.constantFrom(...OTLP_CONTENT_TYPES), weight: 1 },
      ),
      fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: bodyEncoding, weight: 1 }),
      fc.oneof(
        { arbitrary: fc.constant<Credential>({ kind: "valid", name: "apiKey" }), weight: 8 },
        {
          arbitrary: fc
            .constantFrom<CredentialName>("otherEnvKey", "otherOrgKey", "readOnlyKey", "ownerToken")
            .map((name): Credential => ({ kind: "valid", name })),
          weight: 3,
        },
        { arbitrary: anyCredential, weight: 1 },
      ),
      fc.option(idempotencySpec, { nil: null, freq: 5 }),
    )
    .map(
      ([base, exported, contentType, encoding, credential, idempotency]): FuzzRequest => ({
        ...base,
        body: exported.body,
        contentType: contentType === undefined ? exported.type : contentType,
        encoding: "inflating" in exported ? exported.inflating : encoding,
        credential,
        idempotency,
        mutation: exported.mutation,
      }),
    );
}

const MONITOR_FIELDS = [
  "name",
  "description",
  "enabled",
  "metric",
  "filters",
  "windowMinutes",
  "comparison",
  "warningThreshold",
  "alertThreshold",
  "minSessions",
  "noData",
  "renotifyMinutes",
  "notifyOnRecovery",
  "destinationIds",
];

/** Valid bodies of the routes that take one, and every field each route knows (for mutations). */
export const BODY_ROUTES: Readonly<Record<string, { body: fc.Arbitrary<ObjectNode>; fields: readonly string[] }>> = {
  CreateSession: {
    body: sessionBody,
    fields: ["name", "agentName", "userId", "metadata", "id", "startedAt", "conversationId"],
  },
  UpdateSession: {
    body: updateBody,
    fields: [
      "status",
      "completedAt",
      "success",
      "failureReason",
      "estimatedCost",
      "durationMs",
      "promptTokens",
      "completionTokens",
      "totalTokens",
      "customMetrics",
    ],
  },
  CreateEvent: {
    body: eventBody,
    fields: [
      "sessionId",
      "eventType",
      "toolName",
      "toolInput",
      "toolOutput",
      "reasoning",
      "alternativesConsidered",
      "confidence",
      "estimatedCost",
      "occurredAt",
      "durationMs",
      "model",
      "usage",
    ],
  },
  CreateEventBatch: { body: batchBody, fields: ["events"] },
  CreateScore: {
    body: scoreBody,
    fields: ["id", "sessionId", "eventId", "conversationId", "name", "value", "dataType", "comment", "source"],
  },
  CreateScoreBatch: { body: scoreBatchBody, fields: ["scores"] },
  CreateFeedbackToken: { body: feedbackTokenBody, fields: ["sessionId", "eventId", "expiresInSeconds", "names"] },
  PostFeedback: { body: feedbackBody, fields: ["name", "value", "comment", "sessionId", "eventId", "source", "id"] },
  CreateApiKey: { body: createKeyBody, fields: ["name", "environment", "scopes"] },
  RotateApiKey: { body: rotateKeyBody, fields: ["overlapSeconds"] },
  CreateInvitation: { body: invitationBody, fields: ["email", "role"] },
  UpdateMember: { body: memberRoleBody, fields: ["role"] },
  PutOrganisationPrice: {
    body: priceBody,
    fields: ["effectiveFrom", "input", "output", "cacheRead", "cacheWrite", "reasoning", "tiers"],
  },
  PutScoreConfig: { body: scoreConfigBody, fields: ["dataType", "min", "max", "labels", "description"] },
  CreateMonitor: { body: monitorBody, fields: MONITOR_FIELDS },
  ReplaceMonitor: { body: monitorBody, fields: MONITOR_FIELDS },
  PreviewMonitor: { body: monitorBody, fields: MONITOR_FIELDS },
  QueryMetrics: {
    body: metricsBody,
    fields: ["from", "to", "granularity", "measures", "groupBy", "filters", "limit", "cursor"],
  },
  CreateAlertDestination: { body: destinationBody, fields: ["name", "kind", "url"] },
  UpdateAlertDestination: { body: destinationUpdateBody, fields: ["name", "url", "enabled"] },
  ExportTraces: { body: otlpBody, fields: ["resourceSpans"] },
  ExportLogs: { body: otlpLogsBody, fields: ["resourceLogs"] },
};

/** A description of what was done to a valid body (shown in counterexamples and outcome tallies). */
export type Mutation =
  | { readonly op: "none" }
  | { readonly op: "set"; readonly field: string }
  | { readonly op: "remove"; readonly field: string }
  | { readonly op: "extra"; readonly field: string }
  | { readonly op: "duplicate"; readonly field: string }
  | { readonly op: "top-level" }
  | { readonly op: "batch-event"; readonly index: number; readonly inner: Mutation };

export interface MutatedBody {
  readonly mutation: Mutation;
  readonly node: JsonNode;
}

function withField(body: ObjectNode, field: string, value: JsonNode): ObjectNode {
  const exists = body.entries.some(([key]) => key === field);
  return obj(
    exists
      ? body.entries.map(([key, old]) => [key, key === field ? value : old] as const)
      : [...body.entries, [field, value]],
  );
}

/** Top-level replacements: anything but an object. */
const nonObjectTop: fc.Arbitrary<JsonNode> = fc.oneof(
  anyScalar,
  fc.array(anyJson, { maxLength: 3 }).map((items): JsonNode => ({ kind: "array", items })),
  deepNest,
  longString,
);

/** One mutation of a valid object body (`fields`: the fields its route knows). */
export function mutateObject(body: ObjectNode, fields: readonly string[]): fc.Arbitrary<MutatedBody> {
  const known = [...new Set([...fields, ...body.entries.map(([key]) => key)])];
  const present = body.entries.map(([key]) => key);
  const options: fc.Arbitrary<MutatedBody>[] = [
    fc.constant({ mutation: { op: "none" }, node: body }),
    fc
      .tuple(fc.constantFrom(...known), badValue)
      .map(([field, value]) => ({ mutation: { op: "set", field }, node: withField(body, field, value) })),
    fc
      .tuple(anyKey, anyJson)
      .map(([field, value]) => ({ mutation: { op: "extra", field }, node: obj([...body.entries, [field, value]]) })),
    nonObjectTop.map((node) => ({ mutation: { op: "top-level" }, node })),
  ];
  if (present.length > 0) {
    options.push(
      fc.constantFrom(...present).map((field) => ({
        mutation: { op: "remove", field },
        node: obj(body.entries.filter(([key]) => key !== field)),
      })),
      fc.tuple(fc.constantFrom(...present), badValue).map(([field, value]) => ({
        mutation: { op: "duplicate", field },
        node: obj([...body.entries, [field, value]]),
      })),
    );
  }
  return fc.oneof(
    { arbitrary: options[0] as fc.Arbitrary<MutatedBody>, weight: 1 },
    ...options.slice(1).map((arbitrary) => ({ arbitrary, weight: 2 })),
  );
}

/** A valid body of `routeId` with one field mutated (or, for batches, one field of one event). */
export function mutatedBody(routeId: string): fc.Arbitrary<MutatedBody> {
  if (routeId === "ExportTraces" || routeId === "ExportLangfuseTraces") return otlpMutatedBody();
  if (routeId === "ExportLogs") return otlpLogsMutatedBody();
  const spec = BODY_ROUTES[routeId];
  if (spec === undefined) return nonObjectTop.map((node) => ({ mutation: { op: "top-level" }, node }));
  const envelope = spec.body.chain((body) => mutateObject(body, spec.fields));
  if (routeId !== "CreateEventBatch") return envelope;
  const inner = batchBody.chain((body) => {
    const events = body.entries[0]?.[1];
    if (events?.kind !== "array" || events.items.length === 0)
      return fc.constant({ mutation: { op: "none" }, node: body });
    return fc.nat(events.items.length - 1).chain((index) => {
      const target = events.items[index];
      const fields = [...(BODY_ROUTES.CreateEvent?.fields ?? []), "idempotencyKey"];
      const mutation = target?.kind === "object" ? mutateObject(target, fields) : fc.constant(undefined);
      return mutation.map((mutated): MutatedBody => {
        if (mutated === undefined) return { mutation: { op: "none" }, node: body };
        const items = events.items.map((item, position) => (position === index ? mutated.node : item));
        return {
          mutation: { op: "batch-event", index, inner: mutated.mutation },
          node: obj([["events", { kind: "array", items }]]),
        };
      });
    });
  });
  const many = fc.constantFrom(100, 101).chain((count) =>
    eventBody.map(
      (event): MutatedBody => ({
        mutation: { op: "set", field: `events (${count} copies)` },
        node: obj([["events", { kind: "array", items: Array.from({ length: count }, () => event) }]]),
      }),
    ),
  );
  return fc.oneof({ arbitrary: envelope, weight: 3 }, { arbitrary: inner, weight: 4 }, { arbitrary: many, weight: 1 });
}

/** The valid body of a route (no mutation), or none for routes without a body. */
export function validBody(routeId: string): fc.Arbitrary<JsonNode | undefined> {
  const spec = BODY_ROUTES[routeId];
  return spec === undefined ? fc.constant(undefined) : spec.body;
}

// ---------------------------------------------------------------------------
// Raw bodies and content types.
// ---------------------------------------------------------------------------

export type BodySpec =
  | { readonly kind: "none" }
  | { readonly kind: "json"; readonly node: JsonNode }
  /** Text sent as UTF-8 (a lone surrogate becomes U+FFFD on the wire). */
  | { readonly kind: "text"; readonly text: string }
  /** Raw bytes, hex-encoded (e.g. invalid UTF-8, UTF-16). */
  | { readonly kind: "bytes"; readonly hex: string }
  /** `unit` repeated until `bytes` bytes (limits: 256 KiB, or 5 MiB on the event routes; 10 MiB at the gateway). */
  | { readonly kind: "huge"; readonly prefix: string; readonly unit: string; readonly bytes: number };

const RAW_TEXTS = [
  "",
  " ",
  "\n",
  "{",
  "}",
  "[",
  "nul",
  "undefined",
  "NaN",
  "Infinity",
  "-Infinity",
  "{'name':'x'}",
  '{"name":"x",}',
  '{"name":"x"}garbage',
  '{"name":"x"}{"name":"y"}',
  '{"name":"x"} ',
  '{name:"x"}',
  '{"a":1e309}',
  '{"a":-0}',
  '{"a":0x10}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":"\\ud800"}',
  '{"a":"\\u00"}',
  '{"a":"\u0000"}',
  '{"a":"line\nbreak"}',
  "\ufeff{}",
  '\ufeff{"name":"x","agentName":"a","userId":"u"}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  "<xml/>",
  "name=x&agentName=a",
  "--boundary\r\nContent-Disposition: form-data; name=x\r\n\r\ny\r\n--boundary--",
  "null",
  "true",
  "0",
  '""',
  "[]",
  "[{}]",
] as const;

const BYTES = [
  "ff",
  "fffe7b007d00", // UTF-16LE BOM + "{}"
  "c0af",
  "ed a0 80".replaceAll(" ", ""), // CESU-8 lone surrogate
  "7b226e616d65223a22c328227d", // {"name":"\xc3("}
  "f4908080", // beyond U+10FFFF
  "00",
  "1f8b0800000000000003", // gzip magic
] as const;

export const rawBody: fc.Arbitrary<BodySpec> = fc.oneof(
  fc.constantFrom(...RAW_TEXTS).map((text): BodySpec => ({ kind: "text", text })),
  anyString.map((text): BodySpec => ({ kind: "text", text })),
  fc.constantFrom(...BYTES).map((hex): BodySpec => ({ kind: "bytes", hex })),
  fc.uint8Array({ minLength: 1, maxLength: 32 }).map(
    (bytes): BodySpec => ({
      kind: "bytes",
      hex: Buffer.from(bytes).toString("hex"),
    }),
  ),
  nonObjectTop.map((node): BodySpec => ({ kind: "json", node })),
  deepNest.map((node): BodySpec => ({ kind: "json", node })),
  fc.record({
    kind: fc.constant("huge" as const),
    prefix: fc.constantFrom('{"name":"', '{"events":[', "[", ""),
    unit: fc.constantFrom("a", "é", '{"a":1},'),
    bytes: fc.constantFrom(262_144, 262_145, 1_048_577, 2_000_000, 5_242_880, 5_242_881, 6_000_000),
  }),
);

/**
 * A request body's Content-Encoding: the body gzip-compressed, gzip cut short, a gzip bomb (a small body
 * that inflates to `bytes`, past the 5 MiB limit), or a declared encoding the body does not have.
 */
export type EncodingSpec =
  | { readonly kind: "gzip" }
  | { readonly kind: "truncated-gzip" }
  | { readonly kind: "bomb"; readonly bytes: number }
  | { readonly kind: "declared"; readonly value: string }
  /**
   * The body replaced by an OTLP export of tiny repeated fields inflating ~1,000:1 to `bytes`
   * (bench/fixtures/inflating-bodies.ts), gzip-compressed: the decompression ratios of issue 30's review.
   */
  | {
      readonly kind: "inflating";
      readonly signal: Signal;
      readonly encoding: Encoding;
      readonly filler: Filler;
      readonly bytes: number;
    };

/** An inflating export of `signal` (any encoding, any filler, up to the 5 MiB limit or past it). */
export function inflatingEncoding(signal: Signal): fc.Arbitrary<EncodingSpec> {
  return fc.record({
    kind: fc.constant("inflating" as const),
    signal: fc.constant(signal),
    encoding: fc.constantFrom<Encoding>("protobuf", "json"),
    filler: fc.constantFrom(...FILLERS),
    bytes: fc.constantFrom(64 * 1024, 1024 * 1024, 5 * 1024 * 1024, 6 * 1024 * 1024),
  });
}

export const bodyEncoding: fc.Arbitrary<EncodingSpec> = fc.oneof(
  { arbitrary: fc.constant<EncodingSpec>({ kind: "gzip" }), weight: 4 },
  { arbitrary: fc.constant<EncodingSpec>({ kind: "truncated-gzip" }), weight: 1 },
  {
    arbitrary: fc.constantFrom(6_000_000, 64 * 1024 * 1024).map((bytes): EncodingSpec => ({ kind: "bomb", bytes })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom("gzip", "deflate", "br", "zstd", "identity", "gzip, gzip", "x-gzip", "GZIP", "", "gzip;q=1")
      .map((value): EncodingSpec => ({ kind: "declared", value })),
    weight: 2,
  },
);

/** Mostly no Content-Encoding; now and then one of `bodyEncoding`. */
export const occasionalEncoding: fc.Arbitrary<EncodingSpec | null> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 6 },
  { arbitrary: bodyEncoding, weight: 1 },
);

export const contentType: fc.Arbitrary<string | null> = fc.oneof(
  { arbitrary: fc.constant("application/json"), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      null,
      "",
      "application/json; charset=utf-8",
      "application/json;charset=latin1",
      "APPLICATION/JSON",
      "application/vnd.api+json",
      "application/merge-patch+json",
      "application/jsonx",
      "application/json-seq",
      "text/json",
      "text/plain",
      "text/html; charset=utf-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=boundary",
      "application/octet-stream",
      "*/*",
      "application/*",
      "json",
      ";",
      "application/json, text/plain",
      "application/json\t",
      " application/json",
      "application/json; boundary=\u00ff",
    ),
    weight: 3,
  },
);

// ---------------------------------------------------------------------------
// Credentials (symbolic: resolved by the test file, never printed).
// ---------------------------------------------------------------------------

/** Who the request claims to be. */
export type CredentialName =
  | "apiKey" // the fuzz organisation's key, every scope
  | "readOnlyKey" // same organisation, scope `read` only
  | "otherEnvKey" // same organisation, `test` environment, every scope
  | "otherOrgKey" // another organisation, every scope
  | "ownerToken" // owner of the fuzz organisation
  | "memberToken" // member of the fuzz organisation
  | "otherOrgToken" // owner of another organisation
  | "feedbackToken"; // an end user's feedback token for the first fuzz session (POST /api/public/feedback only)

export type SecretMutation =
  | { readonly op: "truncate"; readonly keep: number }
  | { readonly op: "flip"; readonly at: number }
  | { readonly op: "append"; readonly text: string }
  | { readonly op: "upper" }
  | { readonly op: "swapEnvironment" };

export type Credential =
  | { readonly kind: "none" }
  | { readonly kind: "valid"; readonly name: CredentialName }
  | { readonly kind: "mutated"; readonly name: CredentialName; readonly mutation: SecretMutation }
  /** An Authorization header value that is not a secret of the world. */
  | { readonly kind: "literal"; readonly header: string };

/** How the credential is put into `Authorization`. */
export const SCHEMES = ["Bearer ", "bearer ", "BEARER ", "Bearer  ", "Bearer\t", "Basic ", "Token ", "", " Bearer "];

const secretMutation: fc.Arbitrary<SecretMutation> = fc.oneof(
  fc.nat(60).map((keep): SecretMutation => ({ op: "truncate", keep })),
  fc.nat(60).map((at): SecretMutation => ({ op: "flip", at })),
  fc.constantFrom(" ", "x", "\u00e9", "=", ".", "\t").map((text): SecretMutation => ({ op: "append", text })),
  fc.constant<SecretMutation>({ op: "upper" }),
  fc.constant<SecretMutation>({ op: "swapEnvironment" }),
);

const LITERAL_AUTHORIZATIONS = [
  "",
  "Bearer",
  "Bearer ",
  "Bearer null",
  "Bearer undefined",
  "Bearer ats_live_",
  "Bearer ats_live_00000000000000000000000000000000000000",
  "Bearer ats_prod_00000000000000000000000000000000000000",
  "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.",
  "Bearer a.b.c",
  "Bearer ....",
  "Basic dXNlcjpwYXNz",
  "Digest username=x",
  "\u00ff\u00fe",
] as const;

export const anyCredential: fc.Arbitrary<Credential> = fc.oneof(
  fc.constant<Credential>({ kind: "none" }),
  fc
    .constantFrom<CredentialName>(
      "apiKey",
      "readOnlyKey",
      "otherEnvKey",
      "otherOrgKey",
      "ownerToken",
      "memberToken",
      "otherOrgToken",
      "feedbackToken",
    )
    .map((name): Credential => ({ kind: "valid", name })),
  fc
    .tuple(fc.constantFrom<CredentialName>("apiKey", "ownerToken", "feedbackToken"), secretMutation)
    .map(([name, mutation]): Credential => ({ kind: "mutated", name, mutation })),
  fc
    .oneof(fc.constantFrom(...LITERAL_AUTHORIZATIONS), fc.string({ unit: "binary-ascii", maxLength: 60 }))
    .map((header): Credential => ({ kind: "literal", header })),
);

/** The credential a route accepts: the API key with every scope, or the owner's token. */
export function validCredentialFor(route: RouteDefinition): Credential {
  if (route.auth.kind === "user" || route.auth.kind === "signedIn") return { kind: "valid", name: "ownerToken" };
  if (route.auth.kind === "apiKey" || route.auth.kind === "apiKeyOrUser") return { kind: "valid", name: "apiKey" };
  if (route.auth.kind === "feedbackToken") return { kind: "valid", name: "feedbackToken" };
  return { kind: "none" };
}

// ---------------------------------------------------------------------------
// Paths, query strings, headers, idempotency keys.
// ---------------------------------------------------------------------------

/** One path parameter: a world reference, or raw text put into the path as is (already encoded). */
export type ParameterSpec =
  | { readonly kind: "ref"; readonly ref: Reference; readonly pick: number }
  | { readonly kind: "raw"; readonly text: string };

export type PathSpec =
  | { readonly kind: "route"; readonly template: string; readonly parameters: Readonly<Record<string, ParameterSpec>> }
  | { readonly kind: "raw"; readonly path: string };

/** Percent-encodes everything but unreserved characters (so any string fits in a path segment). */
export function encodeSegment(text: string): string {
  return [...Buffer.from(text.toWellFormed(), "utf8")]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}

const RAW_SEGMENTS = [
  "..",
  ".",
  "%2e%2e",
  "%2E%2E%2F%2E%2E",
  "%2F",
  "a%2Fb",
  "%00",
  "%",
  "%ZZ",
  "%ED%A0%80", // encoded lone surrogate (invalid UTF-8)
  "%C0%AF",
  "%FF",
  "%F0%9F%98%80",
  "%E2%80%AE",
  "ses_",
  "ses_00000000000000000000000000",
  "ses_01JAAAAAAAAAAAAAAAAAAAAAAA",
  "ses_01jaaaaaaaaaaaaaaaaaaaaaaa",
  "SES_01JAAAAAAAAAAAAAAAAAAAAAAA",
  "evt_01JAAAAAAAAAAAAAAAAAAAAAAA",
  "key_01JAAAAAAAAAAAAAAAAAAAAAAA",
  "job_01JAAAAAAAAAAAAAAAAAAAAAAA",
  "del_01JAAAAAAAAAAAAAAAAAAAAAAA",
  "__proto__",
  "constructor",
  "toString",
  "null",
  "undefined",
  "0",
  "-1",
  "1e309",
  "ORG%23x%23ENV%23live",
  "%23",
  "a#b",
  "%20",
  "+",
  "~",
] as const;

/** Long segments, up to ~10,000 characters on the wire (Node's server answers a bodiless 431 past 16 KiB of headers). */
const longSegment: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("a", "%C3%A9", "%F0%9F%98%80", "ses_", "%2F", ".."),
    fc.constantFrom(255, 256, 257, 700, 1_500, 2_500),
  )
  .filter(([unit, count]) => unit.length * count <= 10_000)
  .map(([unit, count]) => unit.repeat(count));

const rawSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...RAW_SEGMENTS),
  anyString.filter((text) => text.length > 0).map(encodeSegment),
  longSegment,
);

export function parameterSpec(reference: Reference): fc.Arbitrary<ParameterSpec> {
  return fc.oneof(
    { arbitrary: fc.nat(50).map((pick): ParameterSpec => ({ kind: "ref", ref: reference, pick })), weight: 2 },
    {
      arbitrary: fc
        .constantFrom<Reference>(
          "session",
          "otherOrgSession",
          "otherEnvSession",
          "keyId",
          "jobId",
          "eventId",
          "scoreId",
        )
        .chain((other) => fc.nat(50).map((pick): ParameterSpec => ({ kind: "ref", ref: other, pick }))),
      weight: 1,
    },
    { arbitrary: rawSegment.map((text): ParameterSpec => ({ kind: "raw", text })), weight: 3 },
  );
}

/** The world reference that fits each path parameter of a route. */
export function referenceFor(route: RouteDefinition, parameter: string): Reference {
  if (parameter === "jobId") return "jobId";
  if (parameter === "eventId") return "eventId";
  if (parameter === "scoreId") return "scoreId";
  if (parameter === "id") return route.path.startsWith("/api/keys") ? "keyId" : "session";
  return "session"; // agentName / userId: any text works; a session id is as good as any
}

function parameterNames(route: RouteDefinition): string[] {
  return [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "");
}

/** Path parameters that name existing resources (agent and user names come from the pools). */
export function validPath(route: RouteDefinition): fc.Arbitrary<PathSpec> {
  const names = parameterNames(route);
  const parameters: Record<string, fc.Arbitrary<ParameterSpec>> = {};
  for (const name of names) {
    if (name === "agentName")
      parameters[name] = fc
        .constantFrom("fuzz-agent", "helper-agent", ...PROTOTYPE_NAMES)
        .map((text) => ({ kind: "raw", text: encodeSegment(text) }));
    else if (name === "userId")
      parameters[name] = fc
        .constantFrom("fuzz-user", "nobody-here", ...PROTOTYPE_NAMES)
        .map((text) => ({ kind: "raw", text: encodeSegment(text) }));
    else if (name === "field")
      // The event field route (issue 21): its three fields, and names an object lookup would find.
      parameters[name] = fc
        .constantFrom("toolInput", "toolOutput", "reasoning", "toolOutputJson", "toolInputJsonRef", ...PROTOTYPE_NAMES)
        .map((text) => ({ kind: "raw", text: encodeSegment(text) }));
    else if (name === "model")
      // An organisation price's model: any name, prototype names, `#` and `/` (encoded) among them.
      parameters[name] = fc
        .constantFrom("gpt-4o", "ft:gpt-4o-mini:fuzz", "azure/our-prod-chat", "x#PRICE#y", "%", ...PROTOTYPE_NAMES)
        .map((text) => ({ kind: "raw", text: encodeSegment(text) }));
    else if (name === "name")
      // A score configuration's name: any text, prototype names and key-like text among them.
      parameters[name] = fc
        .constantFrom("helpfulness", "thumbs", "x#SCORECONFIG#y", "%", ...PROTOTYPE_NAMES)
        .map((text) => ({ kind: "raw", text: encodeSegment(text) }));
    else if (name === "id" && route.path.startsWith("/api/sdk/conversations"))
      // A conversation: the fuzz sessions' own, another tenant's key shape, `#` and `%`, prototype names.
      parameters[name] = fc
        .constantFrom(...FUZZ_CONVERSATIONS, "CONVERSATION#ORG#x#ENV#live#c", "%", ...PROTOTYPE_NAMES)
        .map((text) => ({ kind: "raw", text: encodeSegment(text) }));
    else if (name === "monitorId")
      // A monitor: ids of no monitor, another kind's id, key-like text, prototype names.
      parameters[name] = fc
        .constantFrom(
          "mon_01KAZ2S0A1B2C3D4E5F6G7H8J9",
          "ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE",
          "x#live#mon_1",
          "%",
          ...PROTOTYPE_NAMES,
        )
        .map((text) => ({ kind: "raw", text: encodeSegment(text) }));
    else if (name === "destinationId")
      // An alert destination: an id of the right shape nobody holds, key-like text, prototype names (each a 404).
      parameters[name] = fc
        .constantFrom("dst_01KAZ4B6C8D0E2F4G6H8J0K2M4", "x", "ALERTDEST#x", "%", ...PROTOTYPE_NAMES)
        .map((text) => ({ kind: "raw", text: encodeSegment(text) }));
    else if (name === "orgId")
      // An invitation's organisation: nobody of the fuzz world has one, so each is a 404.
      parameters[name] = fc
        .constantFrom("acme", "fuzz-org-none", "ORG#x#ENV#live", ...PROTOTYPE_NAMES)
        .map((text) => ({ kind: "raw", text: encodeSegment(text) }));
    else
      parameters[name] = fc
        .nat(50)
        .map((pick): ParameterSpec => ({ kind: "ref", ref: referenceFor(route, name), pick }));
  }
  return fc
    .record(parameters)
    .map((resolved): PathSpec => ({ kind: "route", template: route.path, parameters: resolved }));
}

/** Fuzzed path parameters for a route, or a path near it that no route matches. */
export function oddPath(route: RouteDefinition): fc.Arbitrary<PathSpec> {
  const names = parameterNames(route);
  const withParameters = fc.tuple(...names.map((name) => parameterSpec(referenceFor(route, name)))).map(
    (specs): PathSpec => ({
      kind: "route",
      template: route.path,
      parameters: Object.fromEntries(names.map((name, index) => [name, specs[index] as ParameterSpec])),
    }),
  );
  const concrete = route.path.replace(/\{(\w+)\}/g, "x");
  const near = fc
    .constantFrom(
      `${concrete}/`,
      `/${concrete}`,
      `${concrete}//`,
      concrete.toUpperCase(),
      `${concrete}/..`,
      `${concrete}/../..`,
      `${concrete}/%2e%2e`,
      `/api/sdk/../sdk${concrete.slice("/api/sdk".length)}`,
      `/api/./sdk${concrete.slice("/api/sdk".length)}`,
      `${concrete}%00`,
      `${concrete};jsessionid=1`,
      `${concrete}.json`,
      `${concrete}/extra`,
      concrete.replaceAll("/", "//"),
      concrete.replace("/api", "/API"),
      concrete.replace("/api/", "/api%2F"),
      "/",
      "*",
      "/api",
      "/api/sdk",
      "/api/sdk/",
      "/.well-known/jwks.json/..",
      `/${"a".repeat(4_000)}`,
      "/%ED%A0%80",
    )
    .map((path): PathSpec => ({ kind: "raw", path }));
  return names.length > 0 ? fc.oneof({ arbitrary: withParameters, weight: 3 }, { arbitrary: near, weight: 1 }) : near;
}

const QUERY_NAMES = [
  "limit",
  "effectiveFrom",
  "cursor",
  "agentName",
  "userId",
  "status",
  "from",
  "to",
  "eventType",
  "toolName",
  "minConfidence",
  "maxConfidence",
  "fields",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "",
  "a[b]",
  "limit[]",
] as const;

const QUERY_VALUES = [
  "",
  "0",
  "1",
  "100",
  "101",
  "-1",
  "1.5",
  "1e2",
  "abc",
  "NaN",
  "Infinity",
  "99999999999999999999",
  "00000000000000000001",
  "active",
  "completed",
  "failed",
  "ACTIVE",
  "tool_call",
  "summary",
  "full",
  "0.5",
  "1.0",
  "1.00000000000000000001",
  "0.",
  ".5",
  "2026-11-22",
  "2026-11-22T10:00:00Z",
  "2026-11-22T10:00:00+14:00",
  "2026-02-30",
  "2026-13-01",
  "2026-99-99",
  "0000-00-00",
  "9999-12-31",
  "1970-01-01",
  "0001-01-01T00:00:00Z",
  "275760-09-13T00:00:00Z",
  "2026-11-22T24:00:00Z",
  "fuzz-agent",
  "fuzz-user",
  "eyJ9",
  "e30",
  "AAAA",
  "%ZZ",
  "%00",
  "%ED%A0%80",
  "%F0%9F%98%80",
  "a%26b%3Dc",
  "+",
  "%2B",
] as const;

const queryValue: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...QUERY_VALUES), weight: 4 },
  { arbitrary: anyString.map(encodeSegment), weight: 2 },
  { arbitrary: fc.base64String({ maxLength: 200 }).map(encodeURIComponent), weight: 1 },
  { arbitrary: fc.constantFrom(5_000, 10_000).map((count) => "A".repeat(count)), weight: 1 },
);

/** A raw query string (without `?`): odd values, duplicates, unknown parameters, broken encodings. */
export const oddQuery: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant(""), weight: 1 },
  {
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom(...QUERY_NAMES), queryValue), { minLength: 1, maxLength: 4 })
      .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join("&")),
    weight: 6,
  },
  {
    arbitrary: fc.constantFrom("&", "&&", "=", "==", "a", "limit", "limit=", "?", "#", "limit=1#x", "%", "&limit=1&"),
    weight: 1,
  },
);

/**
 * A well-formed session-list query: any combination of agentName, userId and status, with or without a
 * time range and a limit (issue 11: every combination is served, with full pages). Names come from the
 * same pools as the sessions the run creates, prototype names included.
 */
export const sessionFilterQuery: fc.Arbitrary<string> = fc
  .record(
    {
      agentName: fc.constantFrom("fuzz-agent", "helper-agent", "constructor", "__proto__", "x#TOOL#y"),
      userId: fc.constantFrom("fuzz-user", "customer-1", "toString", "__proto__"),
      status: fc.constantFrom("active", "completed", "failed"),
      from: fc.constantFrom("2026-01-01T00:00:00Z", "2026-11-01"),
      to: fc.constantFrom("2099-12-31T00:00:00Z", "2026-11-22T10:00:00Z"),
      limit: fc.constantFrom("1", "2", "10", "100"),
    },
    { requiredKeys: [] },
  )
  .map((query) =>
    Object.entries(query)
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join("&"),
  );

/** An Idempotency-Key header: a fresh UUID, one of a few shared keys (replays and mismatches), or odd raw text. */
export type IdempotencySpec =
  | { readonly kind: "fresh" }
  | { readonly kind: "shared"; readonly slot: number }
  | { readonly kind: "raw"; readonly value: string };

export const idempotencySpec: fc.Arbitrary<IdempotencySpec> = fc.oneof(
  fc.constant<IdempotencySpec>({ kind: "fresh" }),
  fc.nat(3).map((slot): IdempotencySpec => ({ kind: "shared", slot })),
  fc
    .oneof(
      fc.constantFrom(
        "",
        " ",
        "a b",
        "\t",
        "key\u00e9",
        "\u00ff",
        "__proto__",
        "constructor",
        "a".repeat(255),
        "a".repeat(256),
        "!".repeat(10),
        "~",
        "#",
        "IDEMPOTENCY#x",
        "event:shared-event-key-1",
      ),
      fc.string({ unit: "binary-ascii", maxLength: 40 }),
    )
    .map((value): IdempotencySpec => ({ kind: "raw", value })),
);

/** Extra headers, some repeated or conflicting with the ones the request sets. */
export const extraHeaders: fc.Arbitrary<(readonly [string, string])[]> = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constantFrom(
        "authorization",
        "content-type",
        "idempotency-key",
        "x-organization-id",
        "accept",
        "accept-encoding",
        "content-encoding",
        "x-forwarded-for",
        "x-amzn-trace-id",
        "x-api-key",
        "cookie",
        "origin",
        "__proto__",
        "constructor",
        "x-http-method-override",
      ),
      fc.oneof(
        fc.constantFrom(
          "",
          "application/json",
          "text/plain",
          "gzip",
          "Bearer x",
          "org-does-not-exist",
          "dev",
          "PATCH",
          "*/*",
          "identity",
          "gzip;q=0",
          "*;q=0",
          "gzip, deflate, br",
          "br",
          "null",
          "http://[::1].evil.example",
          "\u00ff",
          "a".repeat(2_000),
        ),
        fc.string({ unit: "grapheme-ascii", maxLength: 40 }),
      ),
    ),
  ),
  { maxLength: 4 },
);

export const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** A request, symbolically. */
export interface FuzzRequest {
  readonly routeId: string;
  readonly method: string;
  readonly path: PathSpec;
  readonly query: string;
  readonly credential: Credential;
  readonly scheme: string;
  readonly contentType: string | null;
  readonly idempotency: IdempotencySpec | null;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: BodySpec;
  /** Content-Encoding applied to (or only declared for) the body; null: none. */
  readonly encoding: EncodingSpec | null;
  /** What the generator did to the body (for tallies). */
  readonly mutation: string;
}

export const ROUTES: readonly RouteDefinition[] = routes;

export function describeMutation(mutation: Mutation): string {
  switch (mutation.op) {
    case "none":
    case "top-level":
      return mutation.op;
    case "batch-event":
      return `event.${describeMutation(mutation.inner)}`;
    default:
      return mutation.op;
  }
}

/** Shared defaults: a valid request to `route` (credential, path, body) that properties then vary. */
export function baseRequest(route: RouteDefinition): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(validPath(route), validBody(route.id)).map(
    ([path, body]): FuzzRequest => ({
      routeId: route.id,
      method: route.method,
      path,
      query: "",
      credential: validCredentialFor(route),
      scheme: "Bearer ",
      contentType: body === undefined ? null : "application/json",
      idempotency: null,
      headers: [],
      body: body === undefined ? { kind: "none" } : { kind: "json", node: body },
      encoding: null,
      mutation: "none",
    }),
  );
}

export const anyRoute: fc.Arbitrary<RouteDefinition> = fc.constantFrom(...ROUTES);
export const bodyRoute: fc.Arbitrary<RouteDefinition> = fc.constantFrom(
  ...ROUTES.filter((route) => BODY_ROUTES[route.id] !== undefined),
);
/** The SDK's POST and PATCH routes, which take an Idempotency-Key. */
export const idempotentRoute: fc.Arbitrary<RouteDefinition> = fc.constantFrom(
  ...ROUTES.filter((route) => route.auth.kind === "apiKey" && (route.method === "POST" || route.method === "PATCH")),
);
export const readRoute: fc.Arbitrary<RouteDefinition> = fc.constantFrom(
  ...ROUTES.filter((route) => route.method === "GET"),
);

// ---------------------------------------------------------------------------
// Log-record floods (issue 30): many GenAI event log records for ONE span, across several exports to
// POST /api/otel/v1/logs — many small records (past the 500 a span keeps) or fewer large ones (past its
// 4 MiB of messages), plain log lines mixed in, an earlier export retried as is. Symbolic: the test file
// (http-fuzz.test.ts, "log-record floods") turns a plan into records whose contents name them.
// ---------------------------------------------------------------------------

/** One export of a flood: `records` new records of `contentChars` characters each, or a retry of an earlier one. */
export type LogFloodExport =
  | {
      readonly kind: "new";
      readonly records: number;
      readonly contentChars: number;
      /** Records that are not GenAI events (refused on their own), placed among the others. */
      readonly plainLines: number;
      readonly gzip: boolean;
    }
  /** The export `back` places before this one sent again, byte for byte (an exporter's retry). */
  | { readonly kind: "retry"; readonly back: number };

export interface LogFloodPlan {
  /** The model call's span is exported first, so every export rebuilds its event. */
  readonly spanFirst: boolean;
  readonly exports: readonly LogFloodExport[];
}

/** Many small records (a span keeps 500) or a few large ones (it keeps 4 MiB), within one 5 MiB body. */
const floodExport: fc.Arbitrary<LogFloodExport> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("new" as const),
      records: fc.integer({ min: 100, max: 700 }),
      contentChars: fc.integer({ min: 1, max: 200 }),
      plainLines: fc.nat(3),
      gzip: fc.boolean(),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("new" as const),
      records: fc.integer({ min: 5, max: 20 }),
      contentChars: fc.integer({ min: 50_000, max: 200_000 }),
      plainLines: fc.nat(2),
      gzip: fc.boolean(),
    }),
    weight: 2,
  },
);

export const logFloodPlan: fc.Arbitrary<LogFloodPlan> = fc.record({
  spanFirst: fc.boolean(),
  exports: fc
    .tuple(
      floodExport,
      fc.array(
        fc.oneof(
          { arbitrary: floodExport, weight: 4 },
          {
            arbitrary: fc.nat({ max: 2 }).map((back): LogFloodExport => ({ kind: "retry", back: back + 1 })),
            weight: 1,
          },
        ),
        { minLength: 1, maxLength: 2 },
      ),
    )
    .map(([first, rest]) => [first, ...rest]),
});
