/**
 * OpenTelemetry traces and the sessions they become. One item per trace of a tenant
 * (`OTELTRACE#<tenant>#<traceId>` / `TRACE`, keys.ts otelTraceKey) holds
 * - the session's id (the service assigns it, as for any session);
 * - how strongly the session's agent and user were named (genai-trace-plan.ts AGENT_CLAIM, USER_CLAIM), so a
 *   later span naming them more strongly moves the session (session-revision.ts), and whether the root span
 *   has arrived;
 * - the model calls recorded, by span id: usage, parent span (to tell a wrapper from its call), event id, and
 *   its span's start, end, instrumentation scope and models (to tell the same call seen by an unlinked span in
 *   a later request: domain/genai-call-merge.ts) — so the root span, which may come in a later request than its children, sums tokens over them without
 *   counting a span twice (a span's entry is SET, never added to);
 * - `toolMovePending` while a move of the session is carrying tools its own transaction could not hold
 *   (session-tool-move.ts): set with the move, removed with its last step, so that the exporter's retry of a
 *   request that failed in between finishes it.
 * The trace item expires with its session, and a session's deletion deletes it (trace-record-deletion.ts).
 */
import { AGENT_CLAIM, type InferenceUsage, type TraceStart, USER_CLAIM } from "../../domain/genai-trace-plan.js";
import type { Principal } from "../../domain/principal.js";
import type { Session } from "../../domain/session.js";
import { conversationFirstRunMove, conversationRunRestart, isFirstRunOf } from "../conversations/conversation-items.js";
import { rememberSession } from "../sessions/session-access.js";
import { planRevision, type SessionRevision } from "../sessions/session-revision.js";
import { conversationJoin, getSession, newSessionRecord } from "../sessions/session-store.js";
import { finishToolMove } from "../sessions/session-tool-move.js";
import { batchGetItems } from "../table/batch-operations.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { defineEntity } from "../table/entity.js";
import { conversationKey, otelTraceKey } from "../table/keys.js";
import { expiryEpochSeconds } from "../table/retention.js";
import {
  EXISTS,
  getItem,
  putIfAbsentItem,
  type TransactItem,
  transact,
  updateItem,
} from "../table/table-operations.js";
import { backoff, isTransactionConflict } from "../table/write-retry.js";

export const OTEL_TRACE_ENTITY = "otelTrace";

/** Attempts of a write on a trace while other requests' (or the stream consumer's) transactions interfere. */
const ATTEMPTS = 5;

/** Model calls whose entries one UpdateItem records (each is a `#u.#sN = :uN` clause). */
const CALLS_PER_UPDATE = 50;

/** A model call of the trace as recorded. */
export interface RecordedCall {
  readonly usage: InferenceUsage;
  readonly parentSpanId?: string | undefined;
  /** The id of its `llm_decision` event. */
  readonly eventId?: string | undefined;
  /** When, by what instrumentation scope and of which models its span ran (unlinked-call-pairs.ts CallExtent). */
  readonly startMs?: number | undefined;
  readonly endMs?: number | undefined;
  readonly scope?: string | undefined;
  readonly models?: readonly string[] | undefined;
}

export interface TraceSession {
  readonly sessionId: string;
  /** Spans of the trace that have GenAI event log records (their messages join the spans' events). */
  readonly logSpans: ReadonlySet<string>;
  /** The session's name is a stand-in until the root span arrives. */
  readonly provisionalName: boolean;
  readonly agentClaim: number;
  readonly userClaim: number;
  readonly conversationId?: string | undefined;
  /** The model calls recorded so far, by span id. */
  readonly calls: ReadonlyMap<string, RecordedCall>;
  /** A move of the session has tools still to carry (a request failed before it finished). */
  readonly movePending: boolean;
}

interface TraceInput {
  readonly principal: Principal;
  readonly traceId: string;
  readonly sessionId: string;
  readonly start: TraceStart;
  readonly ttl: number;
}

/**
 * A recorded call as stored: its usage's numbers, `parent`, `event`, and its span's `start`, `end`, `scope` and
 * `models` (what a client sent is never read).
 */
function recordedCall(value: unknown): RecordedCall {
  const { parent, event, start, end, scope, models, ...numbers } = (
    typeof value === "object" && value !== null ? value : {}
  ) as Record<string, unknown>;
  return {
    usage: Object.fromEntries(Object.entries(numbers).filter(([, count]) => typeof count === "number")),
    parentSpanId: typeof parent === "string" ? parent : undefined,
    eventId: typeof event === "string" ? event : undefined,
    startMs: typeof start === "number" ? start : undefined,
    endMs: typeof end === "number" ? end : undefined,
    scope: typeof scope === "string" ? scope : undefined,
    models: Array.isArray(models) ? models.filter((model): model is string => typeof model === "string") : undefined,
  };
}

/**
 * A trace's record: its session's, or — when GenAI log records of the trace arrived before any of its spans —
 * a placeholder holding only the spans those records belong to (`logSpans`), which the session's start
 * takes over.
 */
interface TraceRecord {
  readonly session?: TraceSession | undefined;
  readonly logSpans: ReadonlySet<string>;
}

function logSpansOf(value: unknown): Set<string> {
  return value instanceof Set ? new Set([...value].filter((spanId) => typeof spanId === "string")) : new Set();
}

const otelTraceEntity = defineEntity<TraceRecord, TraceInput>({
  tag: OTEL_TRACE_ENTITY,
  fields: {},
  storageAttributes: ["ttl"],
  key: ({ principal, traceId }) => otelTraceKey(principal.orgId, principal.environment, traceId),
  attributes: ({ sessionId, start, ttl }) => ({
    sessionId,
    provisionalName: start.provisionalName,
    agentClaim: start.agentClaim,
    userClaim: start.userClaim,
    ...(start.conversationId === undefined ? {} : { conversationId: start.conversationId }),
    usage: {},
    ttl,
  }),
  fromFields: (fields) => {
    const logSpans = logSpansOf(fields.logSpans);
    if (typeof fields.sessionId !== "string") return { logSpans };
    const provisional = fields.provisionalName === true;
    // A record written before claims were kept: its root fixed agent and user, else nothing did.
    const claim = (value: unknown, rootClaim: number) =>
      typeof value === "number" ? value : provisional ? 0 : rootClaim;
    const usage = typeof fields.usage === "object" && fields.usage !== null ? fields.usage : {};
    return {
      logSpans,
      session: {
        sessionId: fields.sessionId,
        logSpans,
        provisionalName: provisional,
        agentClaim: claim(fields.agentClaim, AGENT_CLAIM.rootSpan),
        userClaim: claim(fields.userClaim, USER_CLAIM.rootSpan),
        conversationId: typeof fields.conversationId === "string" ? fields.conversationId : undefined,
        calls: new Map(Object.entries(usage).map(([spanId, value]) => [spanId, recordedCall(value)])),
        movePending: fields.toolMovePending === true,
      },
    };
  },
});

function traceKey(principal: Principal, traceId: string) {
  return otelTraceKey(principal.orgId, principal.environment, traceId);
}

async function getTraceRecord(principal: Principal, traceId: string): Promise<TraceRecord | undefined> {
  const item = await getItem(traceKey(principal, traceId), { consistent: true });
  return item === undefined ? undefined : otelTraceEntity.fromItem(item);
}

/** What the records of a request's traces say as read at once (consistently): absent traces have no entry. */
export type TraceRecords = ReadonlyMap<string, TraceRecord>;

/** The records of several traces of a tenant, in one batch read. */
export async function readTraceRecords(principal: Principal, traceIds: readonly string[]): Promise<TraceRecords> {
  const records = new Map<string, TraceRecord>();
  // A trace id is the key's last 32 characters (keys.ts otelTraceKey; ids are read as 32 hex digits).
  for (const item of await batchGetItems(traceIds.map((traceId) => traceKey(principal, traceId))))
    records.set(String(item.PK).slice(-32), otelTraceEntity.fromItem(item));
  return records;
}

/** The trace's session as its record says, read consistently, or undefined (no record, or no session yet). */
export async function getTraceSession(principal: Principal, traceId: string): Promise<TraceSession | undefined> {
  return (await getTraceRecord(principal, traceId))?.session;
}

/**
 * The session of a trace: the stored one, or a new active session started as `start` says, written in
 * one transaction with the trace's record (so two requests carrying the same new trace make one session:
 * the loser of the race reads the winner's record). `created` tells which.
 */
export async function resolveTraceSession(
  principal: Principal,
  traceId: string,
  start: TraceStart,
  nowMs: number,
  /** The trace's records as just read (readTraceRecords), for the first attempt. */
  read?: TraceRecords,
): Promise<{ readonly trace: TraceSession; readonly created: boolean }> {
  for (let attempt = 1; ; attempt++) {
    const known = attempt === 1 && read !== undefined ? read.get(traceId) : await getTraceRecord(principal, traceId);
    if (known?.session !== undefined) return { trace: known.session, created: false };
    const { writes, started } = sessionStart(principal, traceId, start, known, nowMs);
    try {
      await transact(writes);
      return { trace: started(), created: true };
    } catch (error) {
      if (!(isConditionFailure(error, 0) || isTransactionConflict(error))) throw error;
    }
    // Another request's transaction on the same trace won or got in the way: read what it wrote, or try again.
    if (attempt >= ATTEMPTS) throw new Error(`Could not start the session of trace ${traceId}`);
    await backoff(attempt);
  }
}

/** The writes that start a trace's session (over the placeholder of its log records, if any, which must not
 * have changed since read), and the session they start. */
function sessionStart(
  principal: Principal,
  traceId: string,
  start: TraceStart,
  placeholder: TraceRecord | undefined,
  nowMs: number,
) {
  const { session, item, ttl } = newSessionRecord(
    principal,
    {
      name: start.name,
      agentName: start.agentName,
      userId: start.userId,
      metadata: start.metadata,
      startedAt: new Date(start.startedAtMs).toISOString(),
      conversationId: start.conversationId,
    },
    nowMs,
  );
  const { conversationId } = session;
  const joins = conversationId === undefined ? [] : conversationJoin({ ...session, conversationId }, ttl);
  const trace = otelTraceEntity.toItem({
    principal,
    traceId,
    sessionId: session.id,
    start,
    ttl: Math.max(ttl, expiryEpochSeconds(nowMs, principal.retentionDays)),
  });
  const logSpans = placeholder?.logSpans ?? new Set<string>();
  const traceWrite: TransactItem =
    placeholder === undefined
      ? putIfAbsentItem(trace)
      : {
          Put: {
            Item: { ...trace, ...(logSpans.size > 0 ? { logSpans } : {}) },
            ConditionExpression:
              logSpans.size > 0
                ? "attribute_not_exists(sessionId) AND size(logSpans) = :logSpans"
                : "attribute_not_exists(sessionId) AND attribute_not_exists(logSpans)",
            ...(logSpans.size > 0 ? { ExpressionAttributeValues: { ":logSpans": logSpans.size } } : {}),
          },
        };
  return {
    writes: [traceWrite, putIfAbsentItem(item), ...joins],
    conversationId,
    started: (): TraceSession => {
      rememberSession(session.id, { orgId: session.orgId, environment: session.environment, expiresAt: ttl });
      return {
        sessionId: session.id,
        logSpans,
        provisionalName: start.provisionalName,
        agentClaim: start.agentClaim,
        userClaim: start.userClaim,
        conversationId: start.conversationId,
        calls: new Map(),
        movePending: false,
      };
    },
  };
}

/** Writes one transaction of starts holds at most (DynamoDB's 100; a start is 2, or 4 with its conversation). */
const WRITES_PER_TRANSACTION = 100;
/** And within its 4 MB: the starts' items, in bytes of JSON, that one transaction may hold. */
const START_BYTES_PER_TRANSACTION = 2 * 1024 * 1024;

/**
 * Starts the sessions of new traces (none in `read`) a few transactions for all, not one each: the sessions
 * started, by trace id. A transaction that fails — another request's write got in the way, or anything else —
 * starts none of its traces (and one a trace's start cannot be built for is not tried): resolveTraceSession
 * settles those one by one, so that a failure is its own trace's alone.
 */
export async function startTraceSessions(
  principal: Principal,
  starts: readonly { readonly traceId: string; readonly start: TraceStart }[],
  read: TraceRecords,
  nowMs: number,
): Promise<ReadonlyMap<string, TraceSession>> {
  const groups: {
    writes: TransactItem[];
    bytes: number;
    started: [string, () => TraceSession][];
    conversations: Set<string>;
  }[] = [];
  for (const { traceId, start } of starts) {
    let built: ReturnType<typeof sessionStart>;
    try {
      built = sessionStart(principal, traceId, start, read.get(traceId), nowMs);
    } catch {
      continue;
    }
    const bytes = Buffer.byteLength(JSON.stringify(built.writes), "utf8");
    let group = groups.at(-1);
    if (
      group === undefined ||
      group.writes.length + built.writes.length > WRITES_PER_TRANSACTION ||
      group.bytes + bytes > START_BYTES_PER_TRANSACTION ||
      // A transaction may write a conversation's summary once: its next run starts in the next one.
      (built.conversationId !== undefined && group.conversations.has(built.conversationId))
    ) {
      group = { writes: [], bytes: 0, started: [], conversations: new Set() };
      groups.push(group);
    }
    if (built.conversationId !== undefined) group.conversations.add(built.conversationId);
    group.writes.push(...built.writes);
    group.bytes += bytes;
    group.started.push([traceId, built.started]);
  }
  const sessions = new Map<string, TraceSession>();
  await Promise.all(
    groups.map(async (group) => {
      try {
        await transact(group.writes);
      } catch {
        return;
      }
      for (const [traceId, started] of group.started) sessions.set(traceId, started());
    }),
  );
  return sessions;
}

/**
 * Records model calls on the trace's record (a repeat of a span writes the same entry); resolves with the
 * record as it now stands (every call recorded so far, by any request) and the spans it says have log
 * records (read in the same writes: a log record marked after them finds the calls recorded, see
 * otel-log-store.ts).
 */
export async function recordCalls(
  principal: Principal,
  traceId: string,
  calls: ReadonlyMap<string, RecordedCall>,
): Promise<{ readonly trace: TraceSession | undefined; readonly logSpans: ReadonlySet<string> }> {
  const entries = [...calls];
  let updated: Record<string, unknown> | undefined;
  for (let start = 0; start < entries.length; start += CALLS_PER_UPDATE) {
    const names: Record<string, string> = { "#usage": "usage" };
    const values: Record<string, unknown> = {};
    const clauses = entries.slice(start, start + CALLS_PER_UPDATE).map(([spanId, call], index) => {
      // Span ids are 16 hex digits (checked when read): only ever a placeholder's value.
      names[`#s${index}`] = spanId;
      values[`:u${index}`] = {
        ...call.usage,
        parent: call.parentSpanId,
        event: call.eventId,
        start: call.startMs,
        end: call.endMs,
        scope: call.scope,
        models: call.models === undefined || call.models.length === 0 ? undefined : [...call.models],
      };
      return `#usage.#s${index} = :u${index}`;
    });
    updated = await updateItem({
      Key: traceKey(principal, traceId),
      UpdateExpression: `SET ${clauses.join(", ")}`,
      ConditionExpression: EXISTS,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: "ALL_NEW",
    });
  }
  return {
    trace: updated === undefined ? undefined : otelTraceEntity.fromItem(updated).session,
    logSpans: logSpansOf(updated?.logSpans),
  };
}

/**
 * Marks spans of a trace as having GenAI log records (creating the trace's placeholder record if no span of
 * it arrived yet); resolves with the trace's session id, if it has one, and the event ids of its model calls
 * recorded so far — read in the same write, so a model call recorded after it finds the mark.
 */
export async function markLogSpans(
  principal: Principal,
  traceId: string,
  spanIds: readonly string[],
  nowMs: number,
): Promise<{ readonly sessionId?: string | undefined; readonly eventIds: ReadonlyMap<string, string> }> {
  const updated = await updateItem({
    Key: traceKey(principal, traceId),
    UpdateExpression:
      "ADD logSpans :spans SET #entity = if_not_exists(#entity, :entity), #ttl = if_not_exists(#ttl, :ttl)",
    ExpressionAttributeNames: { "#entity": "entity", "#ttl": "ttl" },
    ExpressionAttributeValues: {
      ":spans": new Set(spanIds),
      ":entity": OTEL_TRACE_ENTITY,
      ":ttl": expiryEpochSeconds(nowMs, principal.retentionDays),
    },
    ReturnValues: "ALL_NEW",
  });
  const record = updated === undefined ? undefined : otelTraceEntity.fromItem(updated);
  const eventIds = new Map<string, string>();
  for (const [spanId, call] of record?.session?.calls ?? []) {
    if (call.eventId !== undefined) eventIds.set(spanId, call.eventId);
  }
  return { sessionId: record?.session?.sessionId, eventIds };
}

/** What a request's spans change of a trace's session and record, given both as stored. */
export interface TraceRevision {
  readonly session: SessionRevision;
  readonly agentClaim: number;
  readonly userClaim: number;
  readonly conversationId?: string | undefined;
  /** The root span arrived: the name is no longer a stand-in. */
  readonly rootArrived: boolean;
}

/**
 * The record's update of a revision, conditioned on the claims as read (a concurrent revision re-plans); with
 * `movePending` when the revision's move leaves tools to carry.
 */
function traceRevisionItem(
  principal: Principal,
  traceId: string,
  read: TraceSession,
  revision: TraceRevision,
  movePending: boolean,
) {
  const values: Record<string, unknown> = {
    ":agentClaim": revision.agentClaim,
    ":userClaim": revision.userClaim,
    ":readAgentClaim": read.agentClaim,
    ":readUserClaim": read.userClaim,
  };
  const sets = ["agentClaim = :agentClaim", "userClaim = :userClaim"];
  if (revision.rootArrived) {
    values[":false"] = false;
    sets.push("provisionalName = :false");
  }
  if (revision.conversationId !== undefined) {
    values[":conversationId"] = revision.conversationId;
    sets.push("conversationId = :conversationId");
  }
  if (movePending) {
    values[":pending"] = true;
    sets.push("toolMovePending = :pending");
  }
  const unchanged = (attribute: string, value: string) =>
    `(${attribute} = ${value} OR attribute_not_exists(${attribute}))`;
  return {
    Update: {
      Key: traceKey(principal, traceId),
      UpdateExpression: `SET ${sets.join(", ")}`,
      ConditionExpression: `${EXISTS} AND ${unchanged("agentClaim", ":readAgentClaim")} AND ${unchanged("userClaim", ":readUserClaim")}`,
      ExpressionAttributeValues: values,
    },
  } satisfies TransactItem;
}

/**
 * A session without a conversation joining the one a later export names: its membership (sorted by its start as
 * revised) and its conversation's count, written with the revision that sets its `conversationId`.
 */
function conversationJoinOf(principal: Principal, session: Session, revision: SessionRevision): TransactItem[] {
  const { conversationId } = revision;
  if (conversationId === undefined || session.conversationId !== undefined) return [];
  const revised = {
    ...session,
    agentName: revision.agentName ?? session.agentName,
    userId: revision.userId ?? session.userId,
    createdAt: revision.createdAt ?? session.createdAt,
    conversationId,
  };
  return conversationJoin(revised, expiryEpochSeconds(Date.parse(revised.createdAt), principal.retentionDays));
}

/**
 * A session that started its conversation and now moves to its real agent, user or start (its first spans named
 * stand-ins): the conversation's first-run fields move with it. Read first (one GetItem), then conditioned on what
 * was read (a conversation another run started is left alone).
 */
async function conversationMoveOf(session: Session, revision: SessionRevision): Promise<TransactItem[]> {
  const { conversationId } = session;
  if (conversationId === undefined) return [];
  const after = {
    agentName: revision.agentName ?? session.agentName,
    userId: revision.userId ?? session.userId,
    createdAt: revision.createdAt ?? session.createdAt,
  };
  if (
    after.agentName === session.agentName &&
    after.userId === session.userId &&
    after.createdAt === session.createdAt
  ) {
    return [];
  }
  const before = { ...session, conversationId };
  const summary = await getItem(conversationKey(session.orgId, session.environment, conversationId));
  return [
    ...(after.createdAt === session.createdAt ? [] : [conversationRunRestart(before, after.createdAt)]),
    ...(isFirstRunOf(summary, session) ? [conversationFirstRunMove(before, after)] : []),
  ];
}

/** The record's update that says the session's move is finished (written with the move's last step). */
function moveFinishedItem(principal: Principal, traceId: string): TransactItem {
  return {
    Update: {
      Key: traceKey(principal, traceId),
      UpdateExpression: "REMOVE toolMovePending",
      ConditionExpression: EXISTS,
    },
  };
}

/**
 * Applies what a request's spans change of a trace's session (`decide`, given the record and the session as
 * read, says what; undefined: nothing): the session's revision and the record's claims in one transaction,
 * then the tools of its move that did not fit in it (session-tool-move.ts). A move left unfinished by an
 * earlier request is finished first. A concurrent change (another request on the trace, the stream consumer
 * counting the session) fails it on its conditions: it is read and decided again. Resolves with the record as
 * it now is.
 */
export async function reviseTraceSession(
  principal: Principal,
  traceId: string,
  decide: (trace: TraceSession, session: Session) => TraceRevision | undefined,
  nowMs: number,
): Promise<TraceSession> {
  for (let attempt = 1; ; attempt++) {
    const trace = await getTraceSession(principal, traceId);
    if (trace === undefined) throw new Error(`The record of trace ${traceId} has no session`);
    const session = await getSession(principal, trace.sessionId, nowMs);
    if (session.toolMove !== undefined || trace.movePending) {
      await finishToolMove(principal, session, [moveFinishedItem(principal, traceId)], nowMs);
      // Finished by another (a deletion does not clear the record's mark): the mark alone.
      if (session.toolMove === undefined) await transact([moveFinishedItem(principal, traceId)]);
      continue;
    }
    const revision = decide(trace, session);
    if (revision === undefined) return trace;
    const joins = [
      ...conversationJoinOf(principal, session, revision.session),
      ...(await conversationMoveOf(session, revision.session)),
    ];
    // The record's update (and a conversation joined: its membership and count) are the caller's items.
    const plan = planRevision(principal, session, revision.session, nowMs, 1 + joins.length);
    try {
      await transact([
        ...plan.items,
        traceRevisionItem(principal, traceId, trace, revision, plan.toolMove !== undefined),
        ...joins,
      ]);
    } catch (error) {
      const retryable = isTransactionConflict(error) || isConditionFailure(error);
      if (!retryable || attempt >= ATTEMPTS) throw error;
      await backoff(attempt);
      continue;
    }
    if (plan.toolMove !== undefined) {
      await finishToolMove(
        principal,
        { ...session, toolMove: plan.toolMove },
        [moveFinishedItem(principal, traceId)],
        nowMs,
      );
    }
    return {
      ...trace,
      agentClaim: revision.agentClaim,
      userClaim: revision.userClaim,
      provisionalName: trace.provisionalName && !revision.rootArrived,
      conversationId: revision.conversationId ?? trace.conversationId,
    };
  }
}
