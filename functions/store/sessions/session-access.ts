/**
 * Which sessions an event may be written to, remembered per container. A
 * session's tenant never changes, so once a container has read a session (or
 * created it) it answers "may this tenant write events to it?" without a read:
 * the hot path of `POST /api/sdk/events` is then the event's own PutItem. The
 * first event of a session in a container costs one strongly consistent
 * GetItem (404 unknown or expired, 403 another tenant's).
 *
 * A session deleted after it was remembered may still receive an event from
 * a container that remembers it; the stream consumer finds such an event's
 * session gone and deletes the event (functions/store/counting/stream-counting.ts).
 */
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { NotFoundError } from "../../domain/errors.js";
import { isId } from "../../domain/ids.js";
import { foreignSessionError, type Principal } from "../../domain/principal.js";
import { documentClient, tableName } from "../table/dynamo-client.js";
import { sessionKey } from "../table/keys.js";

interface KnownSession {
  readonly orgId: string;
  readonly environment: string;
  /** Epoch seconds the session expires at (its TTL), if it has one. */
  readonly expiresAt: number | undefined;
}

/** Sessions remembered at most (oldest forgotten first): ~100 bytes each. */
const MAX_REMEMBERED = 20_000;
const known = new Map<string, KnownSession>();

function remember(sessionId: string, session: KnownSession): void {
  known.delete(sessionId);
  known.set(sessionId, session);
  if (known.size > MAX_REMEMBERED) {
    const oldest = known.keys().next().value;
    if (oldest !== undefined) known.delete(oldest);
  }
}

/** Records a session this container has just created (its first event then needs no read). */
export function rememberSession(sessionId: string, session: KnownSession): void {
  remember(sessionId, session);
}

/** Forgets a session (deleted by this container). */
export function forgetSession(sessionId: string): void {
  known.delete(sessionId);
}

function verdict(principal: Principal, sessionId: string, session: KnownSession | undefined, nowMs: number) {
  if (session === undefined || (session.expiresAt !== undefined && session.expiresAt <= nowMs / 1000)) {
    return new NotFoundError(`Session ${sessionId} not found`);
  }
  if (session.orgId !== principal.orgId || session.environment !== principal.environment) {
    return foreignSessionError(principal, sessionId);
  }
  return undefined;
}

/**
 * Resolves when the principal's tenant may write events to the session; throws NotFoundError (unknown,
 * expired) or ForbiddenError (another tenant's). No read when the container knows the session.
 */
export async function assertSessionWritable(principal: Principal, sessionId: string, nowMs = Date.now()) {
  if (!isId("session", sessionId)) throw new NotFoundError(`Session ${sessionId} not found`);
  const cached = known.get(sessionId);
  if (cached !== undefined) {
    const refusal = verdict(principal, sessionId, cached, nowMs);
    if (refusal === undefined) return;
  }
  const result = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: sessionKey(sessionId),
      ConsistentRead: true,
      ProjectionExpression: "orgId, #environment, #ttl",
      ExpressionAttributeNames: { "#environment": "environment", "#ttl": "ttl" },
    }),
  );
  const item = result.Item;
  const session =
    item === undefined || typeof item.orgId !== "string" || typeof item.environment !== "string"
      ? undefined
      : {
          orgId: item.orgId,
          environment: item.environment,
          expiresAt: typeof item.ttl === "number" ? item.ttl : undefined,
        };
  const refusal = verdict(principal, sessionId, session, nowMs);
  if (refusal !== undefined) throw refusal;
  if (session !== undefined) remember(sessionId, session);
}
