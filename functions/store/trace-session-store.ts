/**
 * OpenTelemetry traces and the sessions they become. One item per trace of a tenant
 * (`OTELTRACE#<tenant>#<traceId>` / `TRACE`, keys.ts otelTraceKey) holds the session's id (the service
 * assigns it, as for any session) and the usage of the trace's inference spans by span id, so the
 * root span — which may come in a later request than its children — sums tokens over them without
 * counting a span twice (a span's entry is SET, never added to). The trace item expires with its session.
 */
import type { InferenceUsage, TraceStart } from "../domain/genai-trace-plan.js";
import type { JsonObject } from "../domain/json.js";
import type { Principal } from "../domain/principal.js";
import { isConditionFailure } from "./condition-failure.js";
import { defineEntity } from "./entity.js";
import { otelTraceKey, sessionKey } from "./keys.js";
import { expiryEpochSeconds } from "./retention.js";
import { rememberSession } from "./session-access.js";
import { newSessionRecord, SESSION_METADATA_ATTRIBUTE } from "./session-store.js";
import { EXISTS, getItem, putIfAbsentItem, transact, updateItem } from "./table-operations.js";
import { backoff, isTransactionConflict } from "./write-retry.js";

export const OTEL_TRACE_ENTITY = "otelTrace";

/** Attempts to start a trace's session while other requests' transactions on the same trace interfere. */
const START_ATTEMPTS = 4;

/** Inference spans whose usage one UpdateItem records (each is a `#u.#sN = :uN` clause). */
const USAGE_PER_UPDATE = 50;

export interface TraceSession {
  readonly sessionId: string;
  /** The session's name is a stand-in until the root span arrives. */
  readonly provisionalName: boolean;
  /** Usage of the trace's inference spans recorded so far, by span id. */
  readonly usage: ReadonlyMap<string, InferenceUsage>;
}

interface TraceInput {
  readonly principal: Principal;
  readonly traceId: string;
  readonly sessionId: string;
  readonly provisionalName: boolean;
  readonly ttl: number;
}

function usageEntry(value: unknown): InferenceUsage {
  if (typeof value !== "object" || value === null) return {};
  const entry = value as Record<string, unknown>;
  const number = (key: string) => (typeof entry[key] === "number" ? entry[key] : undefined);
  return {
    promptTokens: number("promptTokens"),
    completionTokens: number("completionTokens"),
    totalTokens: number("totalTokens"),
    cost: number("cost"),
  };
}

const otelTraceEntity = defineEntity<TraceSession, TraceInput>({
  tag: OTEL_TRACE_ENTITY,
  fields: { sessionId: "string", provisionalName: "boolean", usage: "object" },
  storageAttributes: ["ttl"],
  key: ({ principal, traceId }) => otelTraceKey(principal.orgId, principal.environment, traceId),
  attributes: ({ sessionId, provisionalName, ttl }) => ({ sessionId, provisionalName, usage: {}, ttl }),
  fromFields: (fields) => ({
    sessionId: fields.sessionId as string,
    provisionalName: fields.provisionalName as boolean,
    usage: new Map(Object.entries(fields.usage as object).map(([spanId, value]) => [spanId, usageEntry(value)])),
  }),
});

/** The trace's stored record, read consistently, or undefined. */
export async function getTraceSession(principal: Principal, traceId: string): Promise<TraceSession | undefined> {
  const item = await getItem(otelTraceKey(principal.orgId, principal.environment, traceId), { consistent: true });
  return item === undefined ? undefined : otelTraceEntity.fromItem(item);
}

/**
 * The session of a trace: the stored one, or a new active session started as `start` says, written in
 * one transaction with the trace's record (so two requests carrying the same new trace make one session:
 * the loser of the race reads the winner's record).
 */
export async function resolveTraceSession(
  principal: Principal,
  traceId: string,
  start: TraceStart,
  nowMs: number,
): Promise<TraceSession> {
  for (let attempt = 1; ; attempt++) {
    const known = await getTraceSession(principal, traceId);
    if (known !== undefined) return known;
    const created = await startTraceSession(principal, traceId, start, nowMs);
    if (created !== undefined) return created;
    // Another request's transaction on the same trace won or got in the way: read what it wrote, or try again.
    if (attempt >= START_ATTEMPTS) throw new Error(`Could not start the session of trace ${traceId}`);
    await backoff(attempt);
  }
}

/** The transaction that starts a trace's session; undefined when another request's transaction interfered. */
async function startTraceSession(
  principal: Principal,
  traceId: string,
  start: TraceStart,
  nowMs: number,
): Promise<TraceSession | undefined> {
  const { session, item, ttl } = newSessionRecord(
    principal,
    {
      name: start.name,
      agentName: start.agentName,
      userId: start.userId,
      metadata: start.metadata,
      startedAt: new Date(start.startedAtMs).toISOString(),
    },
    nowMs,
  );
  const trace = otelTraceEntity.toItem({
    principal,
    traceId,
    sessionId: session.id,
    provisionalName: start.provisionalName,
    ttl: Math.max(ttl, expiryEpochSeconds(nowMs, principal.retentionDays)),
  });
  try {
    await transact([putIfAbsentItem(trace), putIfAbsentItem(item)]);
  } catch (error) {
    if (isConditionFailure(error, 0) || isTransactionConflict(error)) return undefined;
    throw error;
  }
  rememberSession(session.id, { orgId: session.orgId, environment: session.environment, expiresAt: ttl });
  return { sessionId: session.id, provisionalName: start.provisionalName, usage: new Map() };
}

/** Records the usage of inference spans on the trace's record (a repeat of a span writes the same entry). */
export async function recordInferenceUsage(
  principal: Principal,
  traceId: string,
  usage: ReadonlyMap<string, InferenceUsage>,
): Promise<void> {
  const entries = [...usage];
  for (let start = 0; start < entries.length; start += USAGE_PER_UPDATE) {
    const names: Record<string, string> = { "#usage": "usage" };
    const values: Record<string, unknown> = {};
    const clauses = entries.slice(start, start + USAGE_PER_UPDATE).map(([spanId, entry], index) => {
      // Span ids are 16 hex digits (checked when read): only ever a placeholder's value.
      names[`#s${index}`] = spanId;
      values[`:u${index}`] = Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined));
      return `#usage.#s${index} = :u${index}`;
    });
    await updateItem({
      Key: otelTraceKey(principal.orgId, principal.environment, traceId),
      UpdateExpression: `SET ${clauses.join(", ")}`,
      ConditionExpression: EXISTS,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }
}

/**
 * The root span's name replaces the stand-in a session started from its children got, and its metadata the
 * children's (the caller merges them). The stream consumer
 * counts the session's events in transactions of its own, so a conflict is likely and retried.
 */
export async function nameTraceSession(
  principal: Principal,
  traceId: string,
  sessionId: string,
  name: string,
  metadata: JsonObject,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await renameTransaction(principal, traceId, sessionId, name, metadata);
      return;
    } catch (error) {
      if (!isTransactionConflict(error) || attempt >= START_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
}

function renameTransaction(
  principal: Principal,
  traceId: string,
  sessionId: string,
  name: string,
  metadata: JsonObject,
) {
  return transact([
    {
      Update: {
        Key: sessionKey(sessionId),
        UpdateExpression: "SET #name = :name, #metadata = :metadata",
        ConditionExpression: `${EXISTS} AND #orgId = :orgId AND #environment = :environment`,
        ExpressionAttributeNames: {
          "#name": "name",
          "#metadata": SESSION_METADATA_ATTRIBUTE,
          "#orgId": "orgId",
          "#environment": "environment",
        },
        ExpressionAttributeValues: {
          ":name": name,
          ":metadata": JSON.stringify(metadata),
          ":orgId": principal.orgId,
          ":environment": principal.environment,
        },
      },
    },
    {
      Update: {
        Key: otelTraceKey(principal.orgId, principal.environment, traceId),
        UpdateExpression: "SET #provisionalName = :false",
        ConditionExpression: EXISTS,
        ExpressionAttributeNames: { "#provisionalName": "provisionalName" },
        ExpressionAttributeValues: { ":false": false },
      },
    },
  ]);
}
