/**
 * OpenTelemetry traces and the sessions they become. One item per trace of a tenant
 * (`OTELTRACE#<tenant>#<traceId>` / `TRACE`, keys.ts otelTraceKey) holds the session's id (the service
 * assigns it, as for any session) and the usage of the trace's inference spans by span id, so the
 * root span — which may come in a later request than its children — sums tokens over them without
 * counting a span twice (a span's entry is SET, never added to). The trace item expires with its session.
 */
import type { InferenceUsage, TraceStart } from "../domain/genai-trace-plan.js";
import type { Principal } from "../domain/principal.js";
import { isConditionFailure } from "./condition-failure.js";
import { defineEntity } from "./entity.js";
import { otelTraceKey, sessionKey } from "./keys.js";
import { expiryEpochSeconds } from "./retention.js";
import { rememberSession } from "./session-access.js";
import { newSessionRecord } from "./session-store.js";
import { EXISTS, getItem, putIfAbsentItem, transact, updateItem } from "./table-operations.js";

export const OTEL_TRACE_ENTITY = "otelTrace";

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
  const known = await getTraceSession(principal, traceId);
  if (known !== undefined) return known;
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
    if (!isConditionFailure(error, 0)) throw error;
    const winner = await getTraceSession(principal, traceId);
    if (winner === undefined) throw error;
    return winner;
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

/** The root span's name replaces the stand-in a session started from its children got. */
export async function nameTraceSession(
  principal: Principal,
  traceId: string,
  sessionId: string,
  name: string,
): Promise<void> {
  await transact([
    {
      Update: {
        Key: sessionKey(sessionId),
        UpdateExpression: "SET #name = :name",
        ConditionExpression: `${EXISTS} AND #orgId = :orgId AND #environment = :environment`,
        ExpressionAttributeNames: { "#name": "name", "#orgId": "orgId", "#environment": "environment" },
        ExpressionAttributeValues: { ":name": name, ":orgId": principal.orgId, ":environment": principal.environment },
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
