/**
 * Request limits. The table of docs/limits.md lists these same numbers; change
 * both together.
 */
export const LIMITS = {
  /** Largest accepted request body, in bytes, once decompressed (413 above it). */
  bodyBytes: 256 * 1024,
  /**
   * Largest accepted body of the event routes (single and batch), in bytes, once decompressed: within
   * Lambda's 6 MB synchronous payload limit (API Gateway's own is 10 MB). Large fields go to S3.
   */
  eventBodyBytes: 5 * 1024 * 1024,
  /** Most events in one batch request. */
  batchEvents: 100,
  /**
   * Most spans in one OTLP export request (POST /api/otel/v1/traces): the OTel SDKs' batch processors
   * send at most 512 by default (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`).
   */
  otlpSpans: 1000,
  /**
   * Most traces one OTLP export request records (each is a session to find or start): the spans of the
   * traces past it are refused in `partialSuccess`. The request also spends one rate-limit token per trace.
   */
  otlpTraces: 100,
  /** Most log records in one OTLP export request (POST /api/otel/v1/logs). */
  otlpLogRecords: 1000,
  /**
   * Most GenAI event log records one span (model call) keeps, across all exports: instrumentations emit one
   * record per message of the call (its input history and each choice), so a long agent conversation is a
   * few hundred. Its `llm_decision` is rebuilt from them all at each export that adds to them, so they are
   * bounded: records past it are refused in `partialSuccess`.
   */
  otlpLogRecordsPerSpan: 500,
  /**
   * Most bytes of messages (JSON) one span's log records keep in all: its `llm_decision`'s `toolInput` and
   * `toolOutput` are built from them (with at most 8 KiB of the span's own content), so each stays within
   * `toolPayloadBytes`. Records past it are refused in `partialSuccess`.
   */
  otlpLogBytesPerSpan: 4 * 1024 * 1024,
  /**
   * Most bytes of log records (messages, plus `LOG_RECORD_ITEM_BYTES` per record for its keys) one logs export
   * may read back to rebuild its model calls' `llm_decision` events: four times a span's 4 MiB of messages
   * (three full spans with their keys). A span whose event needs no rebuild (an exporter's retry of records it
   * holds, the event already built from them) costs the read of its tally only; the new records of a span past
   * it are refused in `partialSuccess`. An export of new model calls reads back about what it sent (at most
   * 5 MiB), so only one adding to calls that hold large earlier records meets it.
   */
  otlpLogRebuildBytesPerExport: 16 * 1024 * 1024,
  /**
   * Most attributes (key-value pairs, at any level: resource, span, event, log record, and inside key-value
   * list values) in one OTLP export request: 128 for each of 1,000 spans, the OTel SDKs' default
   * `OTEL_ATTRIBUTE_COUNT_LIMIT`, with room to spare. Counted while the request is decoded.
   */
  otlpAttributes: 200_000,
  /**
   * Most values of any kind (every message and every field: spans, events, attributes, array items, strings,
   * numbers…) in one OTLP export request, counted while it is decoded: what bounds the work and memory of a
   * request whatever it holds (docs/performance.md states the cost of the worst one).
   */
  otlpValues: 1_000_000,
  /** How far in the future a client's `occurredAt` may be. */
  occurredAtFutureMs: 5 * 60 * 1000,
  /** Longest identifier-like strings: names, agent names, user ids, tool names (in characters, i.e. code points). */
  nameLength: 256,
  /**
   * …and in UTF-8 bytes: these names become parts of DynamoDB keys (a sort key holds at most 1,024 bytes, e.g.
   * GSI5's escaped agent name + creation time + session id), so 256 four-byte characters would not fit.
   */
  nameBytes: 768,
  /** Longest free-text fields: `failureReason`. */
  failureReasonLength: 4096,
  /** Longest `reasoning` of an event, in characters: any size within the body (over 32 KiB it goes to S3). */
  reasoningLength: 5 * 1024 * 1024,
  /** `alternativesConsidered`: at most this many entries, each at most `nameLength`×4 characters. */
  alternativesCount: 100,
  alternativeLength: 1024,
  /** Serialized size of `metadata`, in bytes. */
  metadataBytes: 16 * 1024,
  /** Serialized size of each of `toolInput` / `toolOutput`, in bytes: any size within the body (over 32 KiB it goes to S3). */
  toolPayloadBytes: 5 * 1024 * 1024,
  /** Nesting depth of any JSON object field. */
  jsonDepth: 32,
  /** Entries in `customMetrics`, and the longest metric name. */
  customMetricCount: 100,
  metricNameLength: 128,
  /** Upper bounds of numeric fields (USD, milliseconds, tokens). */
  maxCostUsd: 1_000_000,
  /**
   * The longest duration the service takes, in milliseconds (one year): a session's `durationMs` and an event's
   * (the time a tool call, model call or step took; an OTel span's end − start, capped here).
   */
  maxDurationMs: 1_000 * 60 * 60 * 24 * 365,
  maxTokens: 1_000_000_000_000,
  /**
   * Magnitude below which a non-zero number is rejected. Costs and durations are
   * summed in DynamoDB numbers (38 significant digits): 1e-9 keeps any sum of
   * values within these bounds well inside that precision.
   */
  smallestNonZero: 1e-9,
  /**
   * Most active API keys an organisation holds (revoked keys and keys replaced by a rotation do not
   * count): each key is a credential to look after and may be given a rate limit of its own (the
   * organisation's budget is shared by all its keys), so keys are not free to mint.
   */
  activeKeysPerOrganisation: 50,
  /** A score's `name` and a categorical score's label, in characters (any characters: they are never keys). */
  scoreNameLength: 200,
  scoreLabelLength: 200,
  /** A score's `comment`, in characters. */
  scoreCommentLength: 4000,
  /** Magnitude of a numeric score's value (a finite number; 0 or at least `smallestNonZero` in magnitude). */
  maxScoreMagnitude: 1e15,
  /** Most scores in one batch request. */
  batchScores: 100,
  /**
   * Most scores one target holds: a session (its events' scores included) or a conversation (its own scores). Counted
   * exactly in the target's partition with each new score and deletion; a replacement (same id) does not count again.
   */
  scoresPerTarget: 1000,
  /**
   * Scores `GET /api/sdk/sessions/{id}` and `GET /api/sdk/conversations/{id}` show (oldest first); `scoresTruncated`
   * says when the target has more.
   */
  sessionScoresShown: 20,
  /** A feedback token's lifetime when the minting request names none, and the longest it may ask for (seconds). */
  feedbackTokenDefaultSeconds: 3600,
  feedbackTokenMaxSeconds: 86_400,
  /** Score names a feedback token may be limited to (each at most `scoreNameLength` characters). */
  feedbackTokenNames: 10,
  /** Those names together, as JSON in UTF-8 bytes: they travel inside the token, which must stay short. */
  feedbackTokenNamesBytes: 1024,
  /** A feedback token's length in characters: anything longer is refused before it is decoded. */
  feedbackTokenLength: 4096,
  /** Feedback posts per minute through one feedback token (besides its organisation's budget). */
  feedbackTokenPostsPerMinute: 30,
} as const;
