/**
 * Key builders: the only place key strings are made. docs/data-model.md lists
 * the access pattern each key serves.
 *
 * Tenancy: every organisation has two environments (`live`, `test`); a
 * tenant prefix `ORG#<org>#ENV#<env>` keeps their data apart in every index.
 */
import { createHash } from "node:crypto";
import type { Environment } from "../../domain/api-key.js";
import type { SessionStatus } from "../../domain/session.js";

export interface ItemKey {
  readonly PK: string;
  readonly SK: string;
}

export function tenant(orgId: string, environment: Environment): string {
  return `ORG#${orgId}#ENV#${environment}`;
}

const ORGANISATION_PARTITION_PREFIX = "ORG#";

/** An organisation's partition: the organisation, its key records and audit, its members. */
export function organisationPartition(orgId: string): string {
  return `${ORGANISATION_PARTITION_PREFIX}${orgId}`;
}

/** The organisation id of an organisation partition key (`ORG#<orgId>`), or undefined for any other partition. */
export function orgIdOfPartition(partitionKey: string): string | undefined {
  return partitionKey.startsWith(ORGANISATION_PARTITION_PREFIX)
    ? partitionKey.slice(ORGANISATION_PARTITION_PREFIX.length)
    : undefined;
}

export function organisationKey(orgId: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: "ORG" };
}

/** The credential item of a key, addressed by the key's SHA-256: one read authenticates. */
export function apiKeyCredentialKey(keyHash: string): ItemKey {
  return { PK: `APIKEY#${keyHash}`, SK: "APIKEY" };
}

/** The organisation's record of a key, in the organisation's partition. */
export function apiKeyRecordKey(orgId: string, keyId: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: `${API_KEY_RECORD_PREFIX}${keyId}` };
}

/** The sort-key prefix of an organisation's key records. */
export const API_KEY_RECORD_PREFIX = "APIKEY#";

/** GSI2: a key record found by its id alone (the operator CLI's `revoke --id`). */
export function apiKeyIdIndexKeys(keyId: string) {
  return { GSI2PK: apiKeyIdPartition(keyId), GSI2SK: "APIKEY" };
}

export function apiKeyIdPartition(keyId: string): string {
  return `APIKEYID#${keyId}`;
}

/** Audit records of a key, in time order: `AUDIT#APIKEY#<keyId>#<auditId>`. */
export function apiKeyAuditKey(orgId: string, keyId: string, auditId: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: `${apiKeyAuditPrefix(keyId)}${auditId}` };
}

export function apiKeyAuditPrefix(keyId: string): string {
  return `AUDIT#APIKEY#${keyId}#`;
}

/**
 * An organisation's own model prices live in a partition of their own, `PRICES#<org>`, not in the organisation's:
 * ingest reads them (once a minute per container), and its grant then reaches the prices and nothing else of the
 * organisation (keys, members, audits).
 */
export function organisationPricesPartition(orgId: string): string {
  return `PRICES#${orgId}`;
}

/** The sort-key prefix of an organisation's own model prices (in `PRICES#<org>`). */
export const ORGANISATION_PRICE_PREFIX = "PRICE#";

/**
 * The sort-key prefix of one model's prices: `PRICE#<model>#`, the name with `%` and `#` escaped (as
 * agentSortPrefix does) so that one model's prefix never reaches another's.
 */
export function organisationModelPricePrefix(model: string): string {
  return `${ORGANISATION_PRICE_PREFIX}${model.replaceAll("%", "%25").replaceAll("#", "%23")}#`;
}

/** An organisation's price of a model from a day on: `PRICES#<org>` / `PRICE#<model>#<YYYY-MM-DD>`. */
export function organisationPriceKey(orgId: string, model: string, effectiveFrom: string): ItemKey {
  return { PK: organisationPricesPartition(orgId), SK: `${organisationModelPricePrefix(model)}${effectiveFrom}` };
}

/** The partition of an organisation's score configurations (issue 33): `SCORECONFIGS#<org>`, one Query reads them all. */
export function scoreConfigsPartition(orgId: string): string {
  return `SCORECONFIGS#${orgId}`;
}

/** The sort-key prefix of a score configuration. */
export const SCORE_CONFIG_PREFIX = "SCORECONFIG#";

/** One score name's configuration: `SCORECONFIGS#<org>` / `SCORECONFIG#<name>`. */
export function scoreConfigKey(orgId: string, name: string): ItemKey {
  return { PK: scoreConfigsPartition(orgId), SK: `${SCORE_CONFIG_PREFIX}${name}` };
}

/** The sort-key prefix of the audit of an organisation's prices, all models together in time order. */
export const PRICE_AUDIT_PREFIX = "AUDIT#PRICE#";

/** One change of an organisation's prices: `ORG#<org>` / `AUDIT#PRICE#<auditId>`. */
export function priceAuditKey(orgId: string, auditId: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: `${PRICE_AUDIT_PREFIX}${auditId}` };
}

/** The sort-key prefix of an organisation's alert destinations (in `ORG#<org>`). */
export const ALERT_DESTINATION_PREFIX = "ALERTDEST#";

/** An alert destination of an organisation: `ORG#<org>` / `ALERTDEST#<destinationId>`. */
export function alertDestinationKey(orgId: string, destinationId: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: `${ALERT_DESTINATION_PREFIX}${destinationId}` };
}

/** The sort-key prefix of the alerts audit (monitors' and destinations' changes, in `ORG#<org>`). */
export const ALERT_AUDIT_PREFIX = "AUDIT#ALERT#";

/** One change of an organisation's monitors or destinations: `ORG#<org>` / `AUDIT#ALERT#<auditId>`. */
export function alertAuditKey(orgId: string, auditId: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: `${ALERT_AUDIT_PREFIX}${auditId}` };
}

/** A user's membership, stored twice: under the organisation and under the user. */
export function membershipKey(orgId: string, userId: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: `${MEMBERSHIP_PREFIX}${userId}` };
}

/** The sort-key prefix of an organisation's members. */
export const MEMBERSHIP_PREFIX = "MEMBER#";

/** The partition of an organisation's deletion audit (issue 21): `DELETIONAUDIT#<orgId>`. */
export function deletionAuditPartition(orgId: string): string {
  return `DELETIONAUDIT#${orgId}`;
}

/** One deletion's audit record, in time order: `DELETIONAUDIT#<orgId>` / `AUDIT#<auditId>`. */
export function deletionAuditKey(orgId: string, auditId: string): ItemKey {
  return { PK: deletionAuditPartition(orgId), SK: `AUDIT#${auditId}` };
}

/** Audit records of a membership, in time order: `AUDIT#MEMBER#<userId>#<auditId>` (organisation partition). */
export function memberAuditKey(orgId: string, userId: string, auditId: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: `AUDIT#MEMBER#${userId}#${auditId}` };
}

/**
 * A pending invitation, stored twice like a membership: under the organisation (`INVITATION#<userId>`:
 * its owners list and revoke it; one per person) and under the invited user (`INVITATION#<orgId>`: they
 * list, accept and decline theirs).
 */
export function invitationKey(orgId: string, userId: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: `${INVITATION_PREFIX}${userId}` };
}

/** The sort-key prefix of an organisation's invitations. */
export const INVITATION_PREFIX = "INVITATION#";

export function userInvitationKey(userId: string, orgId: string): ItemKey {
  return { PK: userPartition(userId), SK: `${USER_INVITATION_PREFIX}${orgId}` };
}

/** The sort-key prefix of a user's invitations (in the user's partition). */
export const USER_INVITATION_PREFIX = "INVITATION#";

/** An organisation's count of invitations sent on one UTC day (`INVITATIONS#DAY#<yyyy-mm-dd>`, with a TTL). */
export function invitationCountKey(orgId: string, day: string): ItemKey {
  return { PK: organisationPartition(orgId), SK: `INVITATIONS#DAY#${day}` };
}

export function userMembershipKey(userId: string, orgId: string): ItemKey {
  return { PK: userPartition(userId), SK: `${USER_MEMBERSHIP_PREFIX}${orgId}` };
}

/** The sort-key prefix of a user's memberships (in the user's partition). */
export const USER_MEMBERSHIP_PREFIX = "ORG#";

export function userPartition(userId: string): string {
  return `USER#${userId}`;
}

/** The prefix of every session partition (a session and its events). */
export const SESSION_PARTITION_PREFIX = "SESSION#";

/** A session, its events and its scores share one partition: `SESSION#<id>`. */
export function sessionKey(sessionId: string): ItemKey {
  return { PK: `${SESSION_PARTITION_PREFIX}${sessionId}`, SK: "SESSION" };
}

/**
 * What a deleted session's counting had reached (`SESSION#<id>` / `TOMBSTONE`, expiring after the stream's
 * retention): a batch counted again after the deletion learns from it what the deletion already withdrew.
 */
export function sessionTombstoneKey(sessionId: string): ItemKey {
  return { PK: `${SESSION_PARTITION_PREFIX}${sessionId}`, SK: "TOMBSTONE" };
}

/** The sort-key prefix of a session's events. */
export const EVENT_PREFIX = "EVENT#";

/** Events sort after the session item, in id (= time) order. */
export function eventKey(sessionId: string, eventId: string): ItemKey {
  return { PK: sessionKey(sessionId).PK, SK: `${EVENT_PREFIX}${eventId}` };
}

/** The sort-key prefix of a session's scores (issue 33). */
export const SCORE_PREFIX = "SCORE#";

/** A score lives in its session's partition, after the events: `SESSION#<sessionId>` / `SCORE#<scoreId>`. */
export function scoreKey(sessionId: string, scoreId: string): ItemKey {
  return { PK: sessionKey(sessionId).PK, SK: `${SCORE_PREFIX}${scoreId}` };
}

/**
 * A conversation's own score, in its summary's partition: `CONVERSATION#<tenant>#<enc(id)>` / `SCORE#<scoreId>`
 * (the summary's SK, `CONVERSATION`, sorts before every `SCORE#`).
 */
export function conversationScoreKey(
  orgId: string,
  environment: Environment,
  conversationId: string,
  scoreId: string,
): ItemKey {
  return { PK: conversationKey(orgId, environment, conversationId).PK, SK: `${SCORE_PREFIX}${scoreId}` };
}

/**
 * How many scores a target (a session or a conversation) holds, in the target's own partition: `<PK>` /
 * `SCORECOUNT` (not under `SCORE#`, so no score listing reads it). Bounds scores per target (LIMITS.scoresPerTarget).
 */
export function scoreCountKey(partitionKey: string): ItemKey {
  return { PK: partitionKey, SK: "SCORECOUNT" };
}

interface SessionIndexInput {
  readonly id: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly agentName: string;
  readonly userId: string;
  readonly createdAt: string;
}

/**
 * The session's timeline keys, all sorted by `<createdAt>#<id>`:
 * GSI1 every session of a tenant, GSI2 by agent, GSI3 by external user;
 * GSI6 by external user then agent (the user's partition of GSI3, sorted by
 * agent then time, see agentSortPrefix).
 */
export function sessionTimelineKeys(session: SessionIndexInput) {
  const sortKey = `${session.createdAt}#${session.id}`;
  const base = tenant(session.orgId, session.environment);
  return {
    GSI1PK: `${base}#SESSIONS`,
    GSI1SK: sortKey,
    GSI2PK: `${base}#AGENT#${session.agentName}`,
    GSI2SK: sortKey,
    GSI3PK: `${base}#USER#${session.userId}`,
    GSI3SK: sortKey,
    GSI6PK: `${base}#USER#${session.userId}`,
    GSI6SK: `${agentSortPrefix(session.agentName)}${sortKey}`,
  };
}

/** Partition of GSI4 and GSI5: a tenant's sessions in one status. */
export function sessionStatusPartition(orgId: string, environment: Environment, status: SessionStatus): string {
  return `${tenant(orgId, environment)}#STATUS#${status}`;
}

/**
 * The agent part of GSI5's sort key: the name with `%` and `#` escaped (so it
 * never contains the separator), then `#`. Escaping only those two keeps the
 * key within DynamoDB's 1,024-byte sort-key limit for any allowed name.
 */
export function agentSortPrefix(agentName: string): string {
  return `${agentName.replaceAll("%", "%25").replaceAll("#", "%23")}#`;
}

/** Partition of GSI7 and GSI8: one external user's sessions in one status (the user id last: it is client text). */
export function sessionUserStatusPartition(
  orgId: string,
  environment: Environment,
  status: SessionStatus,
  userId: string,
): string {
  return `${tenant(orgId, environment)}#USERSTATUS#${status}#${userId}`;
}

/**
 * GSI4 by status (sorted by time) and GSI5 by status then agent (sorted by
 * agent, then time; see agentSortPrefix); GSI7 by user and status (by time)
 * and GSI8 by user and status then agent.
 * Only the partition keys depend on the status, so a status change rewrites
 * them without reading the session first.
 */
export function sessionStatusKeys(session: SessionIndexInput, status: SessionStatus) {
  const partition = sessionStatusPartition(session.orgId, session.environment, status);
  const userPartition = sessionUserStatusPartition(session.orgId, session.environment, status, session.userId);
  const byTime = `${session.createdAt}#${session.id}`;
  const byAgent = `${agentSortPrefix(session.agentName)}${byTime}`;
  return {
    GSI4PK: partition,
    GSI4SK: byTime,
    GSI5PK: partition,
    GSI5SK: byAgent,
    GSI7PK: userPartition,
    GSI7SK: byTime,
    GSI8PK: userPartition,
    GSI8SK: byAgent,
  };
}

/** A client's text in a key: `%` and `#` percent-escaped, so it never contains the separator. */
function escapedKeyPart(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("#", "%23");
}

/** The prefix of every conversation summary's partition (its summary and its own scores). */
export const CONVERSATION_PARTITION_PREFIX = "CONVERSATION#";

/** Whether a partition key is a conversation summary's partition. */
export function isConversationPartition(partitionKey: string): boolean {
  return partitionKey.startsWith(CONVERSATION_PARTITION_PREFIX);
}

/**
 * A conversation's summary item (issue 33): `CONVERSATION#<tenant>#<enc(conversationId)>` / `CONVERSATION`. The
 * tenant is part of the key, so another tenant's conversation of the same id is another item.
 */
export function conversationKey(orgId: string, environment: Environment, conversationId: string): ItemKey {
  return {
    PK: `${CONVERSATION_PARTITION_PREFIX}${tenant(orgId, environment)}#${escapedKeyPart(conversationId)}`,
    SK: "CONVERSATION",
  };
}

/** A session's membership of its conversation, in the session's partition: deleted with it. */
export function conversationRunKey(sessionId: string): ItemKey {
  return { PK: sessionKey(sessionId).PK, SK: "CONVERSATION" };
}

/** GSI1 of the membership items: one conversation's runs (`<tenant>#CONVERSATION#<enc(id)>`), by start. */
export function conversationRunsPartition(orgId: string, environment: Environment, conversationId: string): string {
  return `${tenant(orgId, environment)}#CONVERSATION#${escapedKeyPart(conversationId)}`;
}

/** The membership item's index keys: its conversation's partition, sorted by `<createdAt>#<sessionId>`. */
export function conversationRunIndexKeys(run: {
  readonly orgId: string;
  readonly environment: Environment;
  readonly conversationId: string;
  readonly createdAt: string;
  readonly sessionId: string;
}) {
  return {
    GSI1PK: conversationRunsPartition(run.orgId, run.environment, run.conversationId),
    GSI1SK: `${run.createdAt}#${run.sessionId}`,
  };
}

/** Partitions of the conversation summaries' indexes: every one (GSI1), by agent (GSI2), by user (GSI3, GSI6). */
export function conversationListPartitions(orgId: string, environment: Environment, agentName: string, userId: string) {
  const base = tenant(orgId, environment);
  return {
    all: `${base}#CONVERSATIONS`,
    agent: `${base}#CONVERSATIONAGENT#${agentName}`,
    user: `${base}#CONVERSATIONUSER#${userId}`,
  };
}

/**
 * A conversation summary's index keys, all sorted by `<startedAt>#<digest of the id>` (its first run's start): GSI1 every
 * conversation of the tenant, GSI2 by agent, GSI3 by external user, GSI6 by user then agent (as sessions).
 */
export function conversationIndexKeys(conversation: {
  readonly orgId: string;
  readonly environment: Environment;
  readonly conversationId: string;
  readonly agentName: string;
  readonly userId: string;
  readonly startedAt: string;
}) {
  const partitions = conversationListPartitions(
    conversation.orgId,
    conversation.environment,
    conversation.agentName,
    conversation.userId,
  );
  // The id as a fixed-length digest: with an agent name of the longest escaped form before it, the sort key stays
  // within DynamoDB's 1,024 bytes (the id only breaks ties between conversations started at the same instant).
  const digest = createHash("sha256").update(conversation.conversationId).digest("hex").slice(0, 32);
  const sortKey = `${conversation.startedAt}#${digest}`;
  return {
    GSI1PK: partitions.all,
    GSI1SK: sortKey,
    GSI2PK: partitions.agent,
    GSI2SK: sortKey,
    GSI3PK: partitions.user,
    GSI3SK: sortKey,
    GSI6PK: partitions.user,
    GSI6SK: `${agentSortPrefix(conversation.agentName)}${sortKey}`,
  };
}

/** Rollups are per tenant, per dimension (an agent or an external user), per UTC day. */
export type RollupDimension = "AGENT" | "USER";

export function rollupPartition(tenantPrefix: string, dimension: RollupDimension, value: string): string {
  return `ROLLUP#${tenantPrefix}#${dimension}#${value}`;
}

/** Day counters: `DAY#<yyyy-mm-dd>`; its duration bins, tools and failure reasons sort right after it. */
export function rollupDayKey(partition: string, day: string): ItemKey {
  return { PK: partition, SK: `DAY#${day}` };
}

export function rollupToolKey(partition: string, day: string, toolName: string): ItemKey {
  return { PK: partition, SK: `DAY#${day}#TOOL#${toolName}` };
}

/** A day's fine duration bins, in an item of their own so the day item stays small. */
export function rollupDurationsKey(partition: string, day: string): ItemKey {
  return { PK: partition, SK: `DAY#${day}#DUR` };
}

/** A model's calls on a day of an agent (functions/store/counting/rollup-store.ts); `""` for calls without a model. */
export function rollupModelKey(partition: string, day: string, model: string): ItemKey {
  return { PK: partition, SK: `DAY#${day}#MODEL#${model}` };
}

/** A score name's figures on a day of an agent (functions/store/counting/score-rollup.ts); the name is client text. */
export function rollupScoreKey(partition: string, day: string, name: string): ItemKey {
  return { PK: partition, SK: `DAY#${day}#SCORE#${name}` };
}

export function rollupFailureKey(partition: string, day: string, reason: string): ItemKey {
  return { PK: partition, SK: `DAY#${day}#FAIL#${reason}` };
}

/** Sort-key bounds of the days `from`…`to` (inclusive) with their duration, tool and failure items. */
export function rollupDayRange(fromDay: string, toDay: string): { from: string; to: string } {
  return { from: `DAY#${fromDay}`, to: `DAY#${toDay}#~` };
}

/** A fixed-length digest of client text (128 bits): keys stay bounded and unambiguous whatever the text holds. */
function textDigest(parts: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}

/**
 * An alert series (functions/domain/alert-series.ts): `ROLLUP#<tenant>#SERIES#<agent>#<facet>`, the agent a digest
 * of its name (`*`: all agents), the facet `none` or `<kind>.<digest of its names>` — client text (`#`,
 * `__proto__`, 256 characters of any script) never reaches the key as such, so no two series share a partition.
 * Under `ROLLUP#`: the stream consumer's rollup grant covers it.
 */
export function seriesPartition(
  tenantPrefix: string,
  agent: string | undefined,
  facet: { readonly kind: string; readonly names: readonly string[] },
): string {
  const agentPart = agent === undefined ? "*" : textDigest([agent]);
  const facetPart = facet.kind === "none" ? "none" : `${facet.kind}.${textDigest(facet.names)}`;
  return `ROLLUP#${tenantPrefix}#SERIES#${agentPart}#${facetPart}`;
}

/** A series bucket: its level and UTC start (functions/domain/series-buckets.ts bucketKeyText). */
export function seriesBucketKey(partition: string, bucketText: string): ItemKey {
  return { PK: partition, SK: bucketText };
}

/** The sort-key prefix of one tenant's monitors in MONITORS_PARTITION (the monitors' own, escaped organisation id). */
export function tenantMonitorsPrefix(orgId: string, environment: Environment): string {
  return monitorTenantPrefix(orgId, environment);
}

/** The tenant's agents with their session counts: `ROLLUP#<tenant>#AGENTS` / `AGENT#<name>`. */
export function agentSummaryKey(tenantPrefix: string, agentName: string): ItemKey {
  return { PK: agentSummaryPartition(tenantPrefix), SK: `AGENT#${agentName}` };
}

export function agentSummaryPartition(tenantPrefix: string): string {
  return `ROLLUP#${tenantPrefix}#AGENTS`;
}

/** Deletion jobs live in their tenant's partition; unfinished ones are also listed under one fixed key. */
export function deletionJobKey(tenantPrefix: string, jobId: string): ItemKey {
  return { PK: tenantDeletionsPartition(tenantPrefix), SK: `JOB#${jobId}` };
}

function tenantDeletionsPartition(tenantPrefix: string): string {
  return `DELETIONS#${tenantPrefix}`;
}

/**
 * The record that an erasure job counted a session it could not delete: at most once per job and session, however
 * many runs of the job (a redelivery, two workers at once) fail on it.
 */
export function deletionFailureKey(tenantPrefix: string, jobId: string, sessionId: string): ItemKey {
  return { PK: tenantDeletionsPartition(tenantPrefix), SK: `FAILED#${jobId}#${sessionId}` };
}

/** The marker that makes a repeated erasure request of a user return the unfinished job. */
export function activeDeletionKey(tenantPrefix: string, userId: string): ItemKey {
  return { PK: tenantDeletionsPartition(tenantPrefix), SK: `ACTIVE#${userId}` };
}

export const PENDING_DELETIONS_PARTITION = "DELETIONS#PENDING";

export function pendingDeletionKey(jobId: string): ItemKey {
  return { PK: PENDING_DELETIONS_PARTITION, SK: `JOB#${jobId}` };
}

/** The secret cursors are signed with (created at deployment: functions/store/table/cursor-secret.ts). */
export function serviceSecretKey(): ItemKey {
  return { PK: "SERVICE", SK: "CURSOR_SECRET" };
}

/**
 * Idempotency records, per tenant (organisation + environment) and in two namespaces that cannot meet:
 * a request's `Idempotency-Key` header (`…#REQUEST#<key>`) and a batch event's `idempotencyKey`
 * (`…#EVENT#<key>`).
 */
export function requestIdempotencyKey(orgId: string, environment: Environment, key: string): ItemKey {
  return { PK: `IDEMPOTENCY#${tenant(orgId, environment)}#REQUEST#${key}`, SK: "IDEMPOTENCY" };
}

export function eventIdempotencyKey(orgId: string, environment: Environment, key: string): ItemKey {
  return { PK: `IDEMPOTENCY#${tenant(orgId, environment)}#EVENT#${key}`, SK: "IDEMPOTENCY" };
}

/**
 * An OpenTelemetry trace of a tenant and the session it became (`OTELTRACE#<tenant>#<traceId>`): trace ids
 * are the exporter's, so they are looked up per tenant and never meet another tenant's.
 */
export function otelTraceKey(orgId: string, environment: Environment, traceId: string): ItemKey {
  return { PK: `OTELTRACE#${tenant(orgId, environment)}#${traceId}`, SK: "TRACE" };
}

/**
 * The GenAI event log records of one span of a tenant's trace (`OTELLOG#<tenant>#<traceId>#<spanId>`), each
 * under a sort key that orders them as they were emitted (otel-log-store.ts).
 */
export function otelLogPartition(orgId: string, environment: Environment, traceId: string, spanId: string): string {
  return `OTELLOG#${tenant(orgId, environment)}#${traceId}#${spanId}`;
}

/** The sort-key prefix of a span's log records (a Query of them is `begins_with(SK, OTEL_LOG_PREFIX)`). */
export const OTEL_LOG_PREFIX = "LOG#";

export function otelLogKey(partition: string, sortKey: string): ItemKey {
  return { PK: partition, SK: `${OTEL_LOG_PREFIX}${sortKey}` };
}

/** The tally of a span's log records (what it holds, what its event was built after), in their partition. */
export function otelLogTallyKey(partition: string): ItemKey {
  return { PK: partition, SK: "TALLY" };
}

/** A rate-limit bucket of an organisation (all its keys): `ORG#<orgId>`. */
export function organisationRateLimitBucket(orgId: string): string {
  return `ORG#${orgId}`;
}

/** A rate-limit bucket of one API key: `KEY#<keyId>`. */
export function keyRateLimitBucket(keyId: string): string {
  return `KEY#${keyId}`;
}

/** A rate-limit bucket of one signed-in user's console requests in one organisation: `USER#<orgId>#<userId>`. */
export function userRateLimitBucket(orgId: string, userId: string): string {
  return `USER#${orgId}#${userId}`;
}

/**
 * A rate-limit window: `RATELIMIT#ORG#<orgId>#<window>`, `RATELIMIT#KEY#<keyId>#<window>` or
 * `RATELIMIT#USER#<orgId>#<userId>#<window>` (minutes since the epoch).
 */
export function rateLimitWindowKey(bucket: string, window: number): ItemKey {
  return { PK: `RATELIMIT#${bucket}#${window}`, SK: "RATELIMIT" };
}

/** The session id of a session partition key (`SESSION#<id>`), or undefined for any other partition. */
export function sessionIdOfPartition(partitionKey: string): string | undefined {
  return partitionKey.startsWith(SESSION_PARTITION_PREFIX)
    ? partitionKey.slice(SESSION_PARTITION_PREFIX.length)
    : undefined;
}

/**
 * Every monitor (issue 34) in one partition, `MONITORS`, sorted by `<orgId>#<environment>#<monitorId>`: the evaluator
 * lists them all with one paged Query, a tenant's are a `begins_with`. The organisation id is escaped (`%`, `#`) so
 * that one tenant's prefix never reaches another's.
 */
export const MONITORS_PARTITION = "MONITORS";

/** The sort-key prefix of one organisation's monitors (both environments). */
export function monitorOrganisationPrefix(orgId: string): string {
  return `${orgId.replaceAll("%", "%25").replaceAll("#", "%23")}#`;
}

/** The sort-key prefix of one tenant's monitors. */
export function monitorTenantPrefix(orgId: string, environment: Environment): string {
  return `${monitorOrganisationPrefix(orgId)}${environment}#`;
}

export function monitorKey(orgId: string, environment: Environment, monitorId: string): ItemKey {
  return { PK: MONITORS_PARTITION, SK: `${monitorTenantPrefix(orgId, environment)}${monitorId}` };
}

/** A monitor's history: `MONITOR#<monitorId>` (ids are the service's, `mon_` + ULID); read only after its monitor. */
export function monitorHistoryPartition(monitorId: string): string {
  return `MONITOR#${monitorId}`;
}

export const MONITOR_HISTORY_PREFIX = "HISTORY#";

/** One evaluation's change: keyed by the evaluation's minute, so one minute makes one entry at most. */
export function monitorHistoryKey(monitorId: string, minute: string): ItemKey {
  return { PK: monitorHistoryPartition(monitorId), SK: `${MONITOR_HISTORY_PREFIX}${minute}` };
}

/**
 * The Parquet export's change markers (issue 35): one partition, sorted by the minute the stream consumer met a
 * change, then the unit it touched (`<kind>#<orgId>#<environment>#<hour>`); a run reads the minutes since the last.
 */
export const EXPORT_CHANGES_PARTITION = "EXPORT#CHANGES";

export function exportChangeKey(minute: string, unit: string): ItemKey {
  return { PK: EXPORT_CHANGES_PARTITION, SK: `${minute}#${unit}` };
}

/**
 * The export's state item: the last committed run, how far its changes reach, and the run lock. A run of only some
 * organisations (`npm run export -- --org <id>`) keeps a state of its own: `STATE#<ids, sorted, comma-joined>`.
 */
export function exportStateKey(organisations?: readonly string[]): ItemKey {
  return { PK: "EXPORT", SK: organisations === undefined ? "STATE" : `STATE#${[...organisations].sort().join(",")}` };
}
