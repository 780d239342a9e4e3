/**
 * The routes with what their functions may do: per route of the table (route-table.ts), exactly the DynamoDB
 * actions its function is granted and its API Gateway throttle; and the functions behind no route (workers).
 * The CDK stack deploys from here and the tests check every grant against what the code does; handlers import
 * route-table.ts only, so no bundle carries the grants.
 *
 * This module must stay free of runtime imports (no AWS SDK, no CDK); its runtime imports, the route table and
 * the table definition (index names), import nothing heavy.
 */
import {
  acceptsUserToken,
  type ExportAccess,
  type FunctionGroupId,
  functionGroups,
  type PayloadAccess,
  type RouteEntry,
  type RouteId,
  routeTable,
} from "./route-table.js";
import { INDEXES, type IndexName } from "./store/table/table-definition.js";

export {
  acceptsUserToken,
  type ExportAccess,
  type FunctionGroupId,
  functionEntryOf,
  functionGroups,
  type HttpMethod,
  type PayloadAccess,
  type RouteAuth,
  type RouteEntry,
  type RouteId,
} from "./route-table.js";

/** DynamoDB actions a handler may perform, granted per function in the stack. */
export type TableAction =
  | "dynamodb:GetItem"
  | "dynamodb:PutItem"
  | "dynamodb:UpdateItem"
  | "dynamodb:DeleteItem"
  | "dynamodb:Query"
  | "dynamodb:ConditionCheckItem"
  | "dynamodb:BatchWriteItem"
  | "dynamodb:BatchGetItem";

/** A function that is not behind the API (a queue worker, a deployment step). */
export interface WorkerDefinition {
  readonly id: string;
  readonly entry: string;
  readonly tableGrants: readonly TableGrant[];
  readonly payloadAccess?: PayloadAccess;
}

/**
 * Partition keys of the table and of its indexes, as IAM `StringLike`
 * patterns (`*`: any run of characters), one per kind of partition. These are
 * what `dynamodb:LeadingKeys` is checked against: for item actions the item's
 * `PK`, for a Query on an index the index's partition key. Each entry names
 * the key builder that makes the keys it matches; the integration test
 * test/integration/table-grants.test.ts runs every route and proves that each
 * key it touches matches a grant of that route.
 *
 * Adding a kind of partition (a new key builder, a new index) is one line
 * here and one in the grants of the routes that use it.
 */
export const PARTITIONS = {
  /** `APIKEY#<sha256>`: a key's credential item (keys.ts apiKeyCredentialKey). */
  apiKeyCredential: "APIKEY#*",
  /** `ORG#<orgId>`: the organisation, its key records, key audit, members, invitations and the prices' audit (keys.ts). */
  organisation: "ORG#*",
  /** `PRICES#<orgId>`: the organisation's own model prices (keys.ts organisationPriceKey). */
  organisationPrices: "PRICES#*",
  /** `SCORECONFIGS#<orgId>`: the organisation's score configurations (keys.ts scoreConfigKey). */
  scoreConfigs: "SCORECONFIGS#*",
  /** `MONITOR#<monitorId>`: a monitor's history (keys.ts monitorHistoryKey). */
  monitorHistory: "MONITOR#*",
  /** `USER#<userId>`: a signed-in user's memberships and invitations (keys.ts userMembershipKey, userInvitationKey). */
  user: "USER#*",
  /** `SESSION#<id>`: a session, its events and its scores (keys.ts sessionKey, eventKey, scoreKey). */
  session: "SESSION#*",
  /** `ROLLUP#<tenant>#…`: day rollups and the agent summary (keys.ts rollupPartition, agentSummaryPartition). */
  rollup: "ROLLUP#*",
  /** `MONITORS`: every tenant's alert monitors, sort key `<orgId>#<environment>#<monitorId>` (keys.ts MONITORS_PARTITION). */
  monitors: "MONITORS",
  /** `RATELIMIT#…`: rate-limit windows (functions/ratelimit/rate-limiter.ts). */
  rateLimit: "RATELIMIT#*",
  /** `IDEMPOTENCY#<tenant>#REQUEST#<key>`: a request's `Idempotency-Key` header record (keys.ts requestIdempotencyKey). */
  requestIdempotency: "IDEMPOTENCY#ORG#*#ENV#*#REQUEST#*",
  /** `IDEMPOTENCY#<tenant>#EVENT#<key>`: a batch event's `idempotencyKey` record (keys.ts eventIdempotencyKey). */
  eventIdempotency: "IDEMPOTENCY#ORG#*#ENV#*#EVENT#*",
  /** `DELETIONS#ORG#<org>#ENV#<env>`: a tenant's erasure jobs (keys.ts deletionJobKey, deletion-job-store.ts). */
  tenantDeletions: "DELETIONS#ORG#*",
  /** `DELETIONS#PENDING`: unfinished erasure jobs of every tenant (keys.ts pendingDeletionKey). */
  pendingDeletions: "DELETIONS#PENDING",
  /** `DELETIONAUDIT#<orgId>`: who deleted which session or erased which user (keys.ts deletionAuditKey). */
  deletionAudit: "DELETIONAUDIT#*",
  /** `EXPORT#CHANGES`: the Parquet export's change markers (keys.ts exportChangeKey). */
  exportChanges: "EXPORT#CHANGES",
  /** `EXPORT`: the Parquet export's state and run lock (keys.ts exportStateKey). */
  exportState: "EXPORT",
  /** `SERVICE`: the cursor-signing secret (keys.ts serviceSecretKey), created at deployment. */
  service: "SERVICE",
  /** `OTELTRACE#<tenant>#<traceId>`: an OpenTelemetry trace and its session (keys.ts otelTraceKey). */
  otelTrace: "OTELTRACE#ORG#*#ENV#*",
  /** `OTELLOG#<tenant>#<traceId>#<spanId>`: a span's GenAI event log records (keys.ts otelLogPartition). */
  otelLog: "OTELLOG#ORG#*#ENV#*",
  /** `CONVERSATION#<tenant>#<enc(id)>`: a conversation's summary (keys.ts conversationKey). */
  conversation: "CONVERSATION#ORG#*#ENV#*",
  /** GSI1 `<tenant>#CONVERSATION#<enc(id)>`: one conversation's runs (keys.ts conversationRunsPartition). */
  conversationRunsIndex: "ORG#*#ENV#*#CONVERSATION#*",
  /** GSI1 `<tenant>#CONVERSATIONS`: every conversation of a tenant (keys.ts conversationIndexKeys). */
  tenantConversationsIndex: "ORG#*#ENV#*#CONVERSATIONS",
  /** GSI2 `<tenant>#CONVERSATIONAGENT#<agent>`: a tenant's conversations of one agent (keys.ts conversationIndexKeys). */
  agentConversationsIndex: "ORG#*#ENV#*#CONVERSATIONAGENT#*",
  /** GSI3 and GSI6 `<tenant>#CONVERSATIONUSER#<user>`: one external user's conversations (keys.ts conversationIndexKeys). */
  userConversationsIndex: "ORG#*#ENV#*#CONVERSATIONUSER#*",
  /** GSI1 `<tenant>#SESSIONS`: every session of a tenant (keys.ts sessionTimelineKeys). */
  tenantSessionsIndex: "ORG#*#ENV#*#SESSIONS",
  /** GSI2 `<tenant>#AGENT#<name>`: a tenant's sessions of one agent (keys.ts sessionTimelineKeys). */
  agentSessionsIndex: "ORG#*#ENV#*#AGENT#*",
  /** GSI3 and GSI6 `<tenant>#USER#<userId>`: a tenant's sessions of one external user (keys.ts sessionTimelineKeys). */
  userSessionsIndex: "ORG#*#ENV#*#USER#*",
  /** GSI4 and GSI5 `<tenant>#STATUS#<status>`: a tenant's sessions in one status (keys.ts sessionStatusPartition). */
  statusSessionsIndex: "ORG#*#ENV#*#STATUS#*",
  /** GSI7 and GSI8 `<tenant>#USERSTATUS#<status>#<userId>`: one user's sessions in one status (keys.ts sessionUserStatusPartition). */
  userStatusSessionsIndex: "ORG#*#ENV#*#USERSTATUS#*",
  /** GSI2 `APIKEYID#<keyId>`: a key record found by its id (keys.ts apiKeyIdIndexKeys). */
  apiKeyIdIndex: "APIKEYID#*",
} as const;

export type PartitionPattern = (typeof PARTITIONS)[keyof typeof PARTITIONS];

/**
 * DynamoDB actions on the items of some partitions. The stack turns each grant
 * into one IAM statement with `ForAllValues:StringLike` on `dynamodb:LeadingKeys`
 * (and a `Null` check, so a request without leading keys — a Scan — never
 * matches). Transactions and batches are authorised per item with the item's
 * own action (a transaction's Put needs `PutItem` on that item's partition).
 */
export interface TableGrant {
  readonly actions: readonly TableAction[];
  /** Partition keys the actions are limited to. */
  readonly partitions: readonly PartitionPattern[];
  /** On these indexes (Query only) instead of the table: the patterns are then the index partition keys. */
  readonly indexes?: readonly IndexName[];
  /**
   * Only these attributes may appear in the request (`dynamodb:Attributes`,
   * with `ReturnValues` limited to NONE/UPDATED_OLD/UPDATED_NEW): an update
   * of one stamp must not be able to rewrite anything else of the item.
   */
  readonly attributes?: readonly string[];
}

/** An API Gateway route throttle: steady requests per second and burst, for all callers together. */
export interface RouteThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * Per-route throttles of the API stage (all callers together; per-key and
 * per-organisation limits are the rate limiter's job). Each route has its own
 * bucket, so a flood on one route (say, unknown keys hammering a read route)
 * is refused with 429 by API Gateway before it costs a Lambda invocation.
 *
 * Sized so that only a flood from many sources reaches them: with edge protection on (docs/deploy.md), AWS WAF
 * holds each client address to a per-minute limit per kind of route (lib/constructs/edge-settings.ts), and a
 * bucket is a large multiple of that limit (50 addresses at the management limit of 1 rps to fill key
 * management's 50 rps, 25 at the read limit of 10 rps to fill a read route, 5 at the limit of 120 rps on all
 * requests to fill a write route). Without it, one source can still fill a bucket, but no longer with the
 * 10 rps of junk tokens that used to lock every organisation out of the console. No bucket takes more than a tenth
 * of the account's regional quota (10,000 rps shared by every API of the account), so a flood on one route leaves
 * the other APIs theirs; test/cdk checks both. The buckets are no longer held to sum under the quota: with every
 * new route that rule squeezed all buckets towards their floors (docs/decisions.md, "Route throttles, revised").
 */
export const ROUTE_THROTTLES = {
  /** Event ingestion: the hot path of every SDK (a fleet behind one NAT address may send 100 rps unbatched). */
  ingest: { rateLimit: 700, burstLimit: 1400 },
  /** Session start and end: a few per agent run. */
  sessionWrite: { rateLimit: 600, burstLimit: 1200 },
  /** Scores, single and batched: a few per run, from evaluators, end users' feedback, the agent's own code. */
  scoreWrite: { rateLimit: 600, burstLimit: 1200 },
  /** Reads of sessions, events, scores and stats (dashboards, exports). */
  read: { rateLimit: 250, burstLimit: 500 },
  /** Deleting sessions, scores and users' data, and polling erasure jobs. */
  erasure: { rateLimit: 50, burstLimit: 100 },
  /** Key and member management by signed-in users, invitations, and who they are (`GET /api/me`). */
  keyManagement: { rateLimit: 50, burstLimit: 100 },
  /** The public OpenAPI document. */
  publicDocument: { rateLimit: 50, burstLimit: 100 },
  /**
   * End users' feedback posted from browsers with a feedback token (a thumbs-down now and then), and its CORS
   * preflight: public-facing, so each address is held to the read limit at the edge (30 addresses fill it).
   */
  feedback: { rateLimit: 300, burstLimit: 600 },
} as const satisfies Readonly<Record<string, RouteThrottle>>;

const P = PARTITIONS;
/** Index grants name indexes by the access pattern they serve, as the store modules do. */
const I = INDEXES;

/**
 * API-key authentication: the credential lookup, the once-a-minute
 * `lastUsedAt` stamp on the key's record (that attribute only), and the
 * rate-limit windows.
 */
const apiKeyAuthentication: readonly TableGrant[] = [
  { actions: ["dynamodb:GetItem"], partitions: [P.apiKeyCredential] },
  { actions: ["dynamodb:UpdateItem"], partitions: [P.organisation], attributes: ["PK", "SK", "lastUsedAt"] },
  { actions: ["dynamodb:UpdateItem"], partitions: [P.rateLimit] },
];
/** Idempotency-Key records of the SDK's POST and PATCH routes: claimed, completed, released. */
const idempotencyRecords: TableGrant = {
  actions: ["dynamodb:UpdateItem", "dynamodb:DeleteItem"],
  partitions: [P.requestIdempotency],
};
/** Paging cursors are signed with a secret created at deployment; a read route only reads it. */
const cursorSigning: TableGrant = { actions: ["dynamodb:GetItem"], partitions: [P.service] };
/** An organisation's score configurations, read where scores are written (cached a minute per container) and listed. */
const scoreConfigReads: TableGrant = { actions: ["dynamodb:Query"], partitions: [P.scoreConfigs] };
/** Rollup counters: counted by the stream consumer, withdrawn with the sessions deleted. */
const rollupUpdates: TableGrant = { actions: ["dynamodb:UpdateItem"], partitions: [P.rollup] };
/** An organisation's own model prices, read by ingest to price events (at most once a minute per container). */
const organisationPricesRead: TableGrant = { actions: ["dynamodb:Query"], partitions: [P.organisationPrices] };
/** A session recorded from an OpenTelemetry trace is deleted with the trace's record (read first). */
const otelTraceDeletion: TableGrant = {
  actions: ["dynamodb:GetItem", "dynamodb:DeleteItem"],
  partitions: [P.otelTrace],
};
/**
 * A session deleted with its events and scores (read, then BatchWriteItem deletes; its scores read again with
 * BatchGetItem and deleted in transactions with what was counted of them), and its counting tombstone
 * (SESSION#<id> / TOMBSTONE) put in the deletion's transaction: by a key or user (DeleteSession) and by erasure.
 */
const sessionDeletion: TableGrant = {
  actions: [
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:BatchGetItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:DeleteItem",
    "dynamodb:PutItem",
    // The session's count of scores (SCORECOUNT), withdrawn with its scores.
    "dynamodb:UpdateItem",
  ],
  partitions: [P.session],
};
/** A run joining its conversation: the summary item, created with its first run and counted with each. */
const conversationJoin: TableGrant = { actions: ["dynamodb:UpdateItem"], partitions: [P.conversation] };
/**
 * A run leaving its conversation with its deletion: its membership deleted and its conversation's count withdrawn;
 * the last run's leaving sweeps the conversation's own scores (summary read, scores queried, read and deleted in
 * transactions withdrawing their counts, then their SCORECOUNT deleted).
 */
const conversationLeave: TableGrant = {
  actions: [
    "dynamodb:UpdateItem",
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:BatchGetItem",
    "dynamodb:DeleteItem",
  ],
  partitions: [P.conversation],
};
/**
 * A score's write to a conversation: the summary read (agent, expiry, runs left) and a score of the same id read;
 * then the summary checked, the score put and the conversation's SCORECOUNT moved in one transaction.
 */
const conversationScoreWrite: TableGrant = {
  actions: ["dynamodb:GetItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
  partitions: [P.conversation],
};
/**
 * The alerts' fine time series (issue 34, store/alerts/series-store.ts), read by a monitor's evaluation and preview.
 * TODO(merge wt-series): the series' own partition pattern once its key builder exists; until then the rollups'.
 */
const alertSeriesReads: TableGrant = { actions: ["dynamodb:Query"], partitions: [P.rollup] };
/** User authentication: the caller's memberships. */
const userAuthentication: readonly TableGrant[] = [{ actions: ["dynamodb:Query"], partitions: [P.user] }];
/**
 * The console's reads (`apiKeyOrUser`): an API key's authentication, or a user's with the
 * organisation's settings (its rate limits and retention, read from the organisation item
 * `ORG#<org>` / `ORG` and cached like key lookups) and the same rate-limit windows.
 */
const apiKeyOrUserAuthentication: readonly TableGrant[] = [
  ...apiKeyAuthentication,
  ...userAuthentication,
  { actions: ["dynamodb:GetItem"], partitions: [P.organisation] },
];

/** What a route's function may do with the table, and its API Gateway throttle. */
export interface RouteAccess {
  /**
   * Least-privilege table access: each grant is a set of DynamoDB actions on
   * the items of some partitions only (`dynamodb:LeadingKeys`), on the table
   * or on named indexes. Empty: the function gets no table permission at all.
   */
  readonly tableGrants: readonly TableGrant[];
  /** API Gateway throttle of this route (all callers together), see {@link ROUTE_THROTTLES}. */
  readonly throttle: RouteThrottle;
}

/** A route of the table with its access: what the stack deploys. */
export interface RouteDefinition extends RouteEntry, RouteAccess {
  readonly id: RouteId;
}

/** An OTLP trace export's access, at either of its paths (ExportTraces, ExportLangfuseTraces). */
const EXPORT_TRACES_ACCESS = {
  tableGrants: [
    ...apiKeyAuthentication,
    // The traces' records: looked up (together), created with their sessions, claims and model calls recorded.
    {
      actions: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
      partitions: [P.otelTrace],
    },
    // The session: started (with the trace's record), its events looked up and put (a model call's again
    // with its log records' messages), then named, moved to its agent and user, and ended.
    {
      actions: [
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:PutItem",
        "dynamodb:BatchWriteItem",
        "dynamodb:UpdateItem",
      ],
      partitions: [P.session],
    },
    // A model call's log records, read to attach their messages.
    { actions: ["dynamodb:Query"], partitions: [P.otelLog] },
    // A session moved to its real agent and user takes its counts from the placeholder's rollups to theirs.
    rollupUpdates,
    // A trace naming a conversation: its session joins it (its membership is in the session's partition); a session
    // that started its conversation and moves to its real agent, user or start moves the conversation's first run.
    { actions: ["dynamodb:GetItem", "dynamodb:UpdateItem"], partitions: [P.conversation] },
    organisationPricesRead,
  ],
  throttle: ROUTE_THROTTLES.ingest,
} as const satisfies RouteAccess;

/** Per route of the table (route-table.ts), its table grants and throttle. */
export const ROUTE_ACCESS = {
  CreateSession: {
    tableGrants: [
      ...apiKeyAuthentication,
      idempotencyRecords,
      // The session (with its conversation: its membership in its own partition, in one transaction)…
      { actions: ["dynamodb:PutItem"], partitions: [P.session] },
      // …and its conversation's summary, counted in the same transaction.
      conversationJoin,
    ],
    throttle: ROUTE_THROTTLES.sessionWrite,
  },
  UpdateSession: {
    tableGrants: [
      ...apiKeyAuthentication,
      idempotencyRecords,
      { actions: ["dynamodb:GetItem", "dynamodb:UpdateItem"], partitions: [P.session] },
    ],
    throttle: ROUTE_THROTTLES.sessionWrite,
  },
  CreateEvent: {
    tableGrants: [
      ...apiKeyAuthentication,
      idempotencyRecords,
      // The session's tenant (once per session per container), then the event's own PutItem.
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], partitions: [P.session] },
      organisationPricesRead,
    ],
    throttle: ROUTE_THROTTLES.ingest,
  },
  CreateEventBatch: {
    tableGrants: [
      ...apiKeyAuthentication,
      idempotencyRecords,
      // Records of keys sent without `occurredAt`: read for replays, written with their events.
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], partitions: [P.eventIdempotency] },
      // Sessions' tenants, keyed events looked up for replays, then the events' puts.
      {
        actions: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:BatchWriteItem"],
        partitions: [P.session],
      },
      organisationPricesRead,
    ],
    throttle: ROUTE_THROTTLES.ingest,
  },
  CreateScore: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      idempotencyRecords,
      // The session (its tenant, agent, start and expiry), the event scored and a score of the same id read;
      // then the session checked, the score put and (a new score) the session's SCORECOUNT moved in one transaction.
      {
        actions: ["dynamodb:GetItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
        partitions: [P.session],
      },
      conversationScoreWrite,
      scoreConfigReads,
    ],
    throttle: ROUTE_THROTTLES.scoreWrite,
  },
  CreateScoreBatch: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      idempotencyRecords,
      {
        actions: ["dynamodb:GetItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
        partitions: [P.session],
      },
      conversationScoreWrite,
      scoreConfigReads,
    ],
    throttle: ROUTE_THROTTLES.scoreWrite,
  },
  CreateFeedbackToken: {
    tableGrants: [
      ...apiKeyAuthentication,
      // No Idempotency-Key records: the answer is a bearer token, never stored (route-table.ts `idempotencyKey`).
      // The session read (its tenant); the token is signed with a key derived from the deployment's secret.
      { actions: ["dynamodb:GetItem"], partitions: [P.session] },
      cursorSigning,
    ],
    throttle: ROUTE_THROTTLES.scoreWrite,
  },
  PostFeedback: {
    tableGrants: [
      // No key lookup: the token is verified with the deployment's secret; then the token's and the
      // organisation's rate-limit windows, and the score written as CreateScore writes it.
      cursorSigning,
      { actions: ["dynamodb:UpdateItem"], partitions: [P.rateLimit] },
      // A feedback token scores only its session (never a conversation: refused before any read).
      {
        actions: ["dynamodb:GetItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
        partitions: [P.session],
      },
      scoreConfigReads,
    ],
    throttle: ROUTE_THROTTLES.feedback,
  },
  FeedbackPreflight: { tableGrants: [], throttle: ROUTE_THROTTLES.feedback },
  ExportTraces: EXPORT_TRACES_ACCESS,
  // The same export at the path Langfuse's exporters post to.
  ExportLangfuseTraces: EXPORT_TRACES_ACCESS,
  ExportLogs: {
    tableGrants: [
      ...apiKeyAuthentication,
      // The records of each span: written, then read back to attach their messages; the span's tally (what it
      // holds, what its event was rebuilt after) read and updated.
      {
        actions: ["dynamodb:BatchWriteItem", "dynamodb:Query", "dynamodb:GetItem", "dynamodb:UpdateItem"],
        partitions: [P.otelLog],
      },
      // Their spans marked on the trace's record (a placeholder when no span of the trace arrived yet).
      { actions: ["dynamodb:UpdateItem"], partitions: [P.otelTrace] },
      // The model calls' events, read and put again with the messages.
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], partitions: [P.session] },
    ],
    throttle: ROUTE_THROTTLES.ingest,
  },
  GetSession: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      // The session, and its first scores (a Query of its partition's SCORE# items).
      { actions: ["dynamodb:GetItem", "dynamodb:Query"], partitions: [P.session] },
    ],
    throttle: ROUTE_THROTTLES.read,
  },
  ListSessions: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      cursorSigning,
      // Each index only for its own kind of partition.
      { actions: ["dynamodb:Query"], partitions: [P.tenantSessionsIndex], indexes: [I.tenantSessions.indexName] },
      {
        actions: ["dynamodb:Query"],
        partitions: [P.agentSessionsIndex],
        indexes: [I.agentSessionsAndKeyIds.indexName],
      },
      {
        actions: ["dynamodb:Query"],
        partitions: [P.userSessionsIndex],
        indexes: [I.userSessions.indexName, I.userAgentSessions.indexName],
      },
      {
        actions: ["dynamodb:Query"],
        partitions: [P.statusSessionsIndex],
        indexes: [I.statusSessions.indexName, I.statusAgentSessions.indexName],
      },
      {
        actions: ["dynamodb:Query"],
        partitions: [P.userStatusSessionsIndex],
        indexes: [I.userStatusSessions.indexName, I.userStatusAgentSessions.indexName],
      },
      // The sessions of a page, and with a score filter each one's scores of that name.
      { actions: ["dynamodb:BatchGetItem", "dynamodb:Query"], partitions: [P.session] },
    ],
    throttle: ROUTE_THROTTLES.read,
  },
  ListConversations: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      cursorSigning,
      // Each listing index only for the conversation summaries' partitions.
      {
        actions: ["dynamodb:Query"],
        partitions: [P.tenantConversationsIndex],
        indexes: [I.tenantSessions.indexName],
      },
      {
        actions: ["dynamodb:Query"],
        partitions: [P.agentConversationsIndex],
        indexes: [I.agentSessionsAndKeyIds.indexName],
      },
      {
        actions: ["dynamodb:Query"],
        partitions: [P.userConversationsIndex],
        indexes: [I.userSessions.indexName, I.userAgentSessions.indexName],
      },
      { actions: ["dynamodb:BatchGetItem"], partitions: [P.conversation] },
    ],
    throttle: ROUTE_THROTTLES.read,
  },
  GetConversation: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      cursorSigning,
      // The summary, and its own scores (a Query of its partition's SCORE# items).
      { actions: ["dynamodb:GetItem", "dynamodb:Query"], partitions: [P.conversation] },
      // Its runs: the memberships on GSI1 (keys only), then their sessions, and the first runs' scores for the totals.
      { actions: ["dynamodb:Query"], partitions: [P.conversationRunsIndex], indexes: [I.tenantSessions.indexName] },
      { actions: ["dynamodb:BatchGetItem", "dynamodb:Query"], partitions: [P.session] },
    ],
    throttle: ROUTE_THROTTLES.read,
  },
  ListEvents: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      cursorSigning,
      { actions: ["dynamodb:GetItem", "dynamodb:Query"], partitions: [P.session] },
    ],
    throttle: ROUTE_THROTTLES.read,
  },
  GetEventField: {
    tableGrants: [...apiKeyOrUserAuthentication, { actions: ["dynamodb:GetItem"], partitions: [P.session] }],
    throttle: ROUTE_THROTTLES.read,
  },
  ListScores: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      cursorSigning,
      { actions: ["dynamodb:GetItem", "dynamodb:Query"], partitions: [P.session] },
    ],
    throttle: ROUTE_THROTTLES.read,
  },
  DeleteScore: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      // The session's tenant read, then the score read and deleted in a transaction withdrawing what was counted
      // (its rollups and its place in the session's SCORECOUNT).
      {
        actions: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:DeleteItem", "dynamodb:UpdateItem"],
        partitions: [P.session],
      },
      rollupUpdates,
    ],
    // With the deletions: at the edge, a DELETE under /api/sdk/sessions/ is counted as session deletion is.
    throttle: ROUTE_THROTTLES.erasure,
  },
  ListConversationScores: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      cursorSigning,
      // The summary (in the caller's tenant: its key), then a page of its partition's SCORE# items.
      { actions: ["dynamodb:GetItem", "dynamodb:Query"], partitions: [P.conversation] },
    ],
    throttle: ROUTE_THROTTLES.read,
  },
  DeleteConversationScore: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      // The summary read, then the score read and deleted in a transaction withdrawing what was counted (its rollups
      // and its place in the conversation's SCORECOUNT).
      {
        actions: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:DeleteItem", "dynamodb:UpdateItem"],
        partitions: [P.conversation],
      },
      rollupUpdates,
    ],
    // As a session's score: with the deletions.
    throttle: ROUTE_THROTTLES.erasure,
  },
  ListScoreConfigs: {
    tableGrants: [...apiKeyOrUserAuthentication, scoreConfigReads],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  PutScoreConfig: {
    tableGrants: [
      ...userAuthentication,
      // The name's configuration looked up, then put (with the organisation's count moved when it is new).
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], partitions: [P.scoreConfigs] },
      { actions: ["dynamodb:UpdateItem"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  DeleteScoreConfig: {
    tableGrants: [
      ...userAuthentication,
      { actions: ["dynamodb:DeleteItem"], partitions: [P.scoreConfigs] },
      { actions: ["dynamodb:UpdateItem"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  DeleteSession: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      sessionDeletion,
      rollupUpdates,
      otelTraceDeletion,
      conversationLeave,
      // The deletion's audit record, in the deletion's own transaction.
      { actions: ["dynamodb:PutItem"], partitions: [P.deletionAudit] },
    ],
    throttle: ROUTE_THROTTLES.erasure,
  },
  ListAgents: {
    tableGrants: [...apiKeyOrUserAuthentication, { actions: ["dynamodb:Query"], partitions: [P.rollup] }],
    throttle: ROUTE_THROTTLES.read,
  },
  AgentStats: {
    tableGrants: [...apiKeyOrUserAuthentication, { actions: ["dynamodb:Query"], partitions: [P.rollup] }],
    throttle: ROUTE_THROTTLES.read,
  },
  ListModels: {
    tableGrants: [...apiKeyOrUserAuthentication, { actions: ["dynamodb:Query"], partitions: [P.rollup] }],
    throttle: ROUTE_THROTTLES.read,
  },
  AgentModels: {
    tableGrants: [...apiKeyOrUserAuthentication, { actions: ["dynamodb:Query"], partitions: [P.rollup] }],
    throttle: ROUTE_THROTTLES.read,
  },
  UserStats: {
    tableGrants: [...apiKeyOrUserAuthentication, { actions: ["dynamodb:Query"], partitions: [P.rollup] }],
    throttle: ROUTE_THROTTLES.read,
  },
  QueryMetrics: {
    tableGrants: [
      ...apiKeyOrUserAuthentication,
      // The rollups (agent summary, agent and user day rollups) and the hourly series, which live among them.
      { actions: ["dynamodb:Query"], partitions: [P.rollup] },
      cursorSigning,
    ],
    throttle: ROUTE_THROTTLES.read,
  },
  DeleteUserData: {
    tableGrants: [
      ...apiKeyAuthentication,
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], partitions: [P.tenantDeletions] },
      { actions: ["dynamodb:PutItem"], partitions: [P.pendingDeletions] },
      // The erasure request's audit record, written with the job.
      { actions: ["dynamodb:PutItem"], partitions: [P.deletionAudit] },
    ],
    throttle: ROUTE_THROTTLES.erasure,
  },
  GetDeletionJob: {
    tableGrants: [...apiKeyAuthentication, { actions: ["dynamodb:GetItem"], partitions: [P.tenantDeletions] }],
    throttle: ROUTE_THROTTLES.erasure,
  },
  OpenApiDocument: {
    tableGrants: [],
    throttle: ROUTE_THROTTLES.publicDocument,
  },
  CreateApiKey: {
    tableGrants: [
      ...userAuthentication,
      // The organisation's settings and its active-key count (counted from its key records once, for
      // organisations older than the count), the key's record and audit; then its credential.
      {
        actions: ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem"],
        partitions: [P.organisation],
      },
      { actions: ["dynamodb:PutItem"], partitions: [P.apiKeyCredential] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListApiKeys: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:Query"], partitions: [P.organisation] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  RotateApiKey: {
    tableGrants: [
      ...userAuthentication,
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"], partitions: [P.organisation] },
      { actions: ["dynamodb:PutItem", "dynamodb:UpdateItem"], partitions: [P.apiKeyCredential] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  RevokeApiKey: {
    tableGrants: [
      ...userAuthentication,
      // The key's record and audit, the organisation's active-key count (counted once, as on creation).
      {
        actions: ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem"],
        partitions: [P.organisation],
      },
      { actions: ["dynamodb:UpdateItem"], partitions: [P.apiKeyCredential] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListApiKeyAudit: {
    tableGrants: [
      ...userAuthentication,
      { actions: ["dynamodb:GetItem", "dynamodb:Query"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListDeletionAudit: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:Query"], partitions: [P.deletionAudit] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  // The export bucket is read through `exportAccess`; the table only for the caller's role and the cursors' secret.
  ListExports: { tableGrants: [...userAuthentication, cursorSigning], throttle: ROUTE_THROTTLES.keyManagement },
  GetMe: {
    tableGrants: [...userAuthentication],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListMembers: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:Query"], partitions: [P.organisation] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListInvitations: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:Query"], partitions: [P.organisation] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  CreateInvitation: {
    tableGrants: [
      ...userAuthentication,
      // Before anyone is emailed: the person's membership and invitation (409), the owner's membership (their
      // email), the day's invitation count (429). Then the organisation exists and the person is no member
      // (conditions), the invitation and its audit under the organisation; the same invitation under the user.
      {
        actions: ["dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem"],
        partitions: [P.organisation],
      },
      { actions: ["dynamodb:PutItem"], partitions: [P.user] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  RevokeInvitation: {
    tableGrants: [
      ...userAuthentication,
      // The invitation read, then removed with its audit item; the same invitation under the user removed.
      { actions: ["dynamodb:GetItem", "dynamodb:DeleteItem", "dynamodb:PutItem"], partitions: [P.organisation] },
      { actions: ["dynamodb:DeleteItem"], partitions: [P.user] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  AcceptInvitation: {
    tableGrants: [
      // The caller's own invitation read and removed, their membership written under them.
      { actions: ["dynamodb:GetItem", "dynamodb:DeleteItem", "dynamodb:PutItem"], partitions: [P.user] },
      // Under the organisation: the invitation removed, the organisation exists (a condition), the
      // membership and its audit item written.
      {
        actions: ["dynamodb:DeleteItem", "dynamodb:ConditionCheckItem", "dynamodb:PutItem"],
        partitions: [P.organisation],
      },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  DeclineInvitation: {
    tableGrants: [
      { actions: ["dynamodb:GetItem", "dynamodb:DeleteItem"], partitions: [P.user] },
      // Under the organisation: the invitation removed, its audit item written.
      { actions: ["dynamodb:DeleteItem", "dynamodb:PutItem"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  UpdateMember: {
    tableGrants: [
      ...userAuthentication,
      // The organisation's members (the last-owner rule: another owner is checked in the transaction),
      // the membership and its audit; the same membership under the user.
      {
        actions: ["dynamodb:Query", "dynamodb:ConditionCheckItem", "dynamodb:UpdateItem", "dynamodb:PutItem"],
        partitions: [P.organisation],
      },
      { actions: ["dynamodb:UpdateItem"], partitions: [P.user] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  RemoveMember: {
    tableGrants: [
      ...userAuthentication,
      {
        actions: ["dynamodb:Query", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem"],
        partitions: [P.organisation],
      },
      { actions: ["dynamodb:DeleteItem"], partitions: [P.user] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListOrganisationPrices: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:Query"], partitions: [P.organisationPrices] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  GetPriceTable: {
    // The table is in the bundle: authentication is the only read.
    tableGrants: [...userAuthentication],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListPriceAudit: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:Query"], partitions: [P.organisation] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  PutOrganisationPrice: {
    tableGrants: [
      ...userAuthentication,
      // The model's prices read, then in one transaction the price put, the organisation's price count moved
      // (for a new price) and the audit item put.
      { actions: ["dynamodb:Query", "dynamodb:PutItem"], partitions: [P.organisationPrices] },
      { actions: ["dynamodb:PutItem", "dynamodb:UpdateItem"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  DeleteOrganisationPrice: {
    tableGrants: [
      ...userAuthentication,
      // The model's prices read, then the prices deleted with the count moved and an audit item per price.
      { actions: ["dynamodb:Query", "dynamodb:DeleteItem"], partitions: [P.organisationPrices] },
      { actions: ["dynamodb:PutItem", "dynamodb:UpdateItem"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListMonitors: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:Query"], partitions: [P.monitors] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  CreateMonitor: {
    tableGrants: [
      ...userAuthentication,
      // The destinations it names looked up (ORG#<org> / ALERTDEST#…); then in one transaction the monitor put, the
      // tenant's count of monitors moved on the organisation item and the audit record put.
      { actions: ["dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem"], partitions: [P.organisation] },
      { actions: ["dynamodb:PutItem"], partitions: [P.monitors] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  PreviewMonitor: {
    tableGrants: [...userAuthentication, alertSeriesReads],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  GetMonitor: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:GetItem"], partitions: [P.monitors] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ReplaceMonitor: {
    tableGrants: [
      ...userAuthentication,
      // The destinations looked up and the audit record put; the monitor read, then put conditionally on its version.
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], partitions: [P.organisation] },
      { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], partitions: [P.monitors] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  DeleteMonitor: {
    tableGrants: [
      ...userAuthentication,
      // The monitor read, then deleted with the count moved and the audit record put (its history expires).
      { actions: ["dynamodb:UpdateItem", "dynamodb:PutItem"], partitions: [P.organisation] },
      { actions: ["dynamodb:GetItem", "dynamodb:DeleteItem"], partitions: [P.monitors] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListMonitorHistory: {
    tableGrants: [
      ...userAuthentication,
      cursorSigning,
      // The monitor read in the caller's tenant first: the history partition is keyed by the monitor's id alone.
      { actions: ["dynamodb:GetItem"], partitions: [P.monitors] },
      { actions: ["dynamodb:Query"], partitions: [P.monitorHistory] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  TestMonitor: {
    tableGrants: [
      ...userAuthentication,
      { actions: ["dynamodb:GetItem"], partitions: [P.monitors] },
      // The organisation's destinations read once (which are there and enabled) before the hand-over.
      { actions: ["dynamodb:Query"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListAlertAudit: {
    tableGrants: [...userAuthentication, cursorSigning, { actions: ["dynamodb:Query"], partitions: [P.organisation] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  ListAlertDestinations: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:Query"], partitions: [P.organisation] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  CreateAlertDestination: {
    tableGrants: [
      ...userAuthentication,
      // In one transaction: the destination put, the organisation's count of destinations moved, the audit put.
      { actions: ["dynamodb:PutItem", "dynamodb:UpdateItem"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  GetAlertDestination: {
    tableGrants: [...userAuthentication, { actions: ["dynamodb:GetItem"], partitions: [P.organisation] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  UpdateAlertDestination: {
    tableGrants: [
      ...userAuthentication,
      // The destination read, then updated (on its version) with the audit put.
      { actions: ["dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  DeleteAlertDestination: {
    tableGrants: [
      ...userAuthentication,
      // The destination read, then deleted with the count moved and the audit put.
      {
        actions: ["dynamodb:GetItem", "dynamodb:DeleteItem", "dynamodb:UpdateItem", "dynamodb:PutItem"],
        partitions: [P.organisation],
      },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  RotateAlertDestinationSecret: {
    tableGrants: [
      ...userAuthentication,
      { actions: ["dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem"], partitions: [P.organisation] },
    ],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
  TestAlertDestination: {
    // The destination read (with its secret, to sign); the test changes nothing.
    tableGrants: [...userAuthentication, { actions: ["dynamodb:GetItem"], partitions: [P.organisation] }],
    throttle: ROUTE_THROTTLES.keyManagement,
  },
} as const satisfies Readonly<Record<RouteId, RouteAccess>>;

/** Every route with its access, in the table's order. */
export const routes: readonly RouteDefinition[] = routeTable.map((entry) => ({ ...entry, ...ROUTE_ACCESS[entry.id] }));

/**
 * A Lambda function of the API: a route's own, or a function group's (route-table.ts `functionGroups`) serving
 * several routes, with what its routes need together: the union of their table grants, the user pool when one of
 * them takes a user's token, the notifications bus when one sends alert notifications.
 */
export interface ApiFunctionDefinition {
  /** The route's id, or the group's. */
  readonly id: string;
  /** The module the function runs: the route's handler, or the group's dispatcher. */
  readonly entry: string;
  readonly description: string;
  readonly routes: readonly RouteDefinition[];
  readonly tableGrants: readonly TableGrant[];
  readonly acceptsUserToken: boolean;
  readonly sendsDeletionJobs: boolean;
  readonly payloadAccess?: PayloadAccess;
  readonly exportAccess?: ExportAccess;
  readonly createsUsers: boolean;
  readonly sendsAlertNotifications: boolean;
  readonly queuesAlertDeliveries: boolean;
}

function ownFunction(route: RouteDefinition): ApiFunctionDefinition {
  return {
    id: route.id,
    entry: route.entry,
    description: `${route.method} ${route.path}`,
    routes: [route],
    tableGrants: route.tableGrants,
    acceptsUserToken: acceptsUserToken(route.auth),
    sendsDeletionJobs: route.sendsDeletionJobs === true,
    ...(route.payloadAccess === undefined ? {} : { payloadAccess: route.payloadAccess }),
    ...(route.exportAccess === undefined ? {} : { exportAccess: route.exportAccess }),
    createsUsers: route.createsUsers === true,
    sendsAlertNotifications: route.sendsAlertNotifications === true,
    queuesAlertDeliveries: route.queuesAlertDeliveries === true,
  };
}

/**
 * A group's function. A group is for routes that need the table (and the user pool, the notifications bus) only:
 * a route that enqueues erasures, touches offloaded payloads or the export bucket, or creates users keeps a function of its own, whose
 * role holds that power alone.
 */
function groupFunction(group: FunctionGroupId, members: readonly RouteDefinition[]): ApiFunctionDefinition {
  for (const route of members) {
    if (
      route.sendsDeletionJobs === true ||
      route.payloadAccess !== undefined ||
      route.exportAccess !== undefined ||
      route.createsUsers === true
    ) {
      throw new Error(`${route.id} needs a function of its own: it may not be in function group ${group}`);
    }
  }
  return {
    id: group,
    entry: functionGroups[group].entry,
    description: functionGroups[group].description,
    routes: members,
    tableGrants: members.flatMap((route) => route.tableGrants),
    acceptsUserToken: members.some((route) => acceptsUserToken(route.auth)),
    sendsDeletionJobs: false,
    createsUsers: false,
    sendsAlertNotifications: members.some((route) => route.sendsAlertNotifications === true),
    queuesAlertDeliveries: members.some((route) => route.queuesAlertDeliveries === true),
  };
}

/** Every Lambda function of the API, in route-table order (a group where its first route is). */
export const apiFunctions: readonly ApiFunctionDefinition[] = routes.flatMap((route): ApiFunctionDefinition[] => {
  const group = route.functionGroup;
  if (group === undefined) return [ownFunction(route)];
  const members = routes.filter((member) => member.functionGroup === group);
  return members[0] === route ? [groupFunction(group, members)] : [];
});

/** The function that serves a route. */
export function apiFunctionOf(routeId: RouteId): ApiFunctionDefinition {
  const found = apiFunctions.find((fn) => fn.routes.some((route) => route.id === routeId));
  if (found === undefined) throw new Error(`No function serves route ${routeId}`);
  return found;
}

/** The worker that runs erasure jobs from the deletion queue. */
export const deletionWorker: WorkerDefinition = {
  id: "DeletionWorker",
  entry: "functions/deletion/deletion-worker.ts",
  tableGrants: [
    // The job: read, marked running, counted (with each session's deletion), completed; a session it could not
    // delete recorded once (a Put of its failure record with the job's count); its active-job pointer and its
    // pending entry are removed at the end.
    {
      actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
      partitions: [P.tenantDeletions],
    },
    { actions: ["dynamodb:DeleteItem"], partitions: [P.pendingDeletions] },
    // The user's sessions, found on GSI3, each deleted with its events and rollup contribution.
    { actions: ["dynamodb:Query"], partitions: [P.userSessionsIndex], indexes: [I.userSessions.indexName] },
    sessionDeletion,
    rollupUpdates,
    otelTraceDeletion,
    conversationLeave,
  ],
  payloadAccess: "delete",
};

/**
 * The worker of alert deliveries (functions/alerts/delivery/delivery-worker.ts, from the delivery queue): it reads a
 * destination (with its signing secret) and keeps the outcome on it — failures in a row, the last delivery and error,
 * disabling after ten failures — and may write nothing else of the organisation's partition.
 */
export const alertDeliveryWorker: WorkerDefinition = {
  id: "AlertDeliveryWorker",
  entry: "functions/alerts/delivery/delivery-worker.ts",
  tableGrants: [
    { actions: ["dynamodb:GetItem"], partitions: [P.organisation] },
    {
      actions: ["dynamodb:UpdateItem"],
      partitions: [P.organisation],
      attributes: [
        "PK",
        "SK",
        "consecutiveFailures",
        "lastDeliveryAt",
        "lastError",
        "lastFailureAt",
        "enabled",
        "disabledReason",
      ],
    },
  ],
};

/**
 * The consumer of the table's change stream (functions/stream/stream-consumer.ts): per batch it reads the
 * batch's sessions (BatchGetItem; a gone session again with GetItem, then its tombstone), updates each
 * session's counters, then each rollup item once; events whose session is gone are deleted (with their
 * offloaded payloads), and the alert series beside the rollups (the monitors' filters read to know the facets
 * watched, store/alerts/watched-facets.ts). Scores (a session's or a conversation's): read (BatchGetItem) with the score rollup items their
 * labels go to, then counted in transactions (UpdateItem of the score and of its rollup items).
 */
export const streamConsumer: WorkerDefinition = {
  id: "StreamConsumer",
  entry: "functions/stream/stream-consumer.ts",
  tableGrants: [
    {
      actions: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:UpdateItem", "dynamodb:BatchWriteItem"],
      partitions: [P.session],
    },
    rollupUpdates,
    { actions: ["dynamodb:BatchGetItem"], partitions: [P.rollup] },
    // The facets the tenants' monitors watch (their filters), counted into the alert series: read once a minute.
    { actions: ["dynamodb:Query"], partitions: [P.monitors] },
    // A conversation's own scores, read and counted as a session's are.
    { actions: ["dynamodb:BatchGetItem", "dynamodb:UpdateItem"], partitions: [P.conversation] },
  ],
  payloadAccess: "delete",
};

/**
 * The export's reader of the stream (functions/stream/export-change-consumer.ts): places each changed item in its
 * unit — an event's or score's by reading its session (else its tombstone) or its conversation's summary — and puts
 * one change marker per unit.
 */
export const exportChangeMarker: WorkerDefinition = {
  id: "ExportChangeMarker",
  entry: "functions/stream/export-change-consumer.ts",
  tableGrants: [
    { actions: ["dynamodb:BatchGetItem"], partitions: [P.session, P.conversation] },
    { actions: ["dynamodb:BatchWriteItem"], partitions: [P.exportChanges] },
  ],
};

/**
 * The Parquet export (functions/export/export-handler.ts, hourly and on demand): the run lock and state, the change
 * markers since the last run, and per changed unit the tenant's sessions or conversations of an hour (GSI1) and
 * their partitions (sessions with events and scores; summaries with their scores). It writes nothing else.
 */
export const exportJob: WorkerDefinition = {
  id: "ExportJob",
  entry: "functions/export/export-handler.ts",
  tableGrants: [
    { actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"], partitions: [P.exportState] },
    { actions: ["dynamodb:Query"], partitions: [P.exportChanges, P.session, P.conversation] },
    // The sessions an index page names, read whole.
    { actions: ["dynamodb:BatchGetItem"], partitions: [P.session] },
    {
      actions: ["dynamodb:Query"],
      partitions: [P.tenantSessionsIndex, P.tenantConversationsIndex],
      indexes: [I.tenantSessions.indexName],
    },
  ],
};

/**
 * The monitors' evaluator (functions/alerts/evaluate-monitors.ts, every minute): one paged Query of every monitor,
 * each enabled one's window read from the series, and a changed state written — with a history entry in the same
 * transaction when the status changed or it renotifies (the monitor's update is conditional on its state version).
 */
export const monitorEvaluator: WorkerDefinition = {
  id: "MonitorEvaluator",
  entry: "functions/alerts/evaluate-monitors.ts",
  tableGrants: [
    { actions: ["dynamodb:Query", "dynamodb:UpdateItem"], partitions: [P.monitors] },
    // The history entry with each change; read back when an earlier evaluation left its notification unsent.
    { actions: ["dynamodb:PutItem", "dynamodb:GetItem"], partitions: [P.monitorHistory] },
    alertSeriesReads,
  ],
};

/**
 * The deployment step that creates the cursor-signing secret (a CloudFormation
 * custom resource, functions/deploy/cursor-secret-resource.ts): it may only
 * create that one item.
 */
export const cursorSecretSetup: WorkerDefinition = {
  id: "CursorSecretSetup",
  entry: "functions/deploy/cursor-secret-resource.ts",
  tableGrants: [{ actions: ["dynamodb:PutItem"], partitions: [P.service] }],
};

/** Every action of a definition's grants, once each (for reports and tests). */
export function grantedActions(definition: { readonly tableGrants: readonly TableGrant[] }): TableAction[] {
  return [...new Set(definition.tableGrants.flatMap((grant) => grant.actions))];
}

/** A route with its access (for the stack and the tests; handlers use route-table.ts routeEntryById). */
export function routeById(id: RouteId): RouteDefinition {
  const route: RouteDefinition | undefined = routes.find((candidate) => candidate.id === id);
  if (route === undefined) throw new Error(`No route ${id}`);
  return route;
}
