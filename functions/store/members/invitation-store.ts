/**
 * Invitations (domain/invitation.ts), stored twice like memberships: under the organisation
 * (`ORG#<org>` / `INVITATION#<userId>`: one per person, listed and revoked by owners) and under the invited
 * user (`USER#<user>` / `INVITATION#<org>`: listed in `GET /api/me`, accepted or declined), both written
 * and removed in one transaction with their audit item (`AUDIT#MEMBER#<userId>#<auditId>`,
 * membership-store.ts). Accepting writes the membership in the same transaction that consumes the
 * invitation, so an invitation becomes at most one membership.
 *
 * Items carry a TTL (their expiry), but DynamoDB deletes expired items only eventually: reads and
 * conditions go by `expiresAt`, never by an item's mere presence.
 *
 * The daily count (`ORG#<org>` / `INVITATIONS#DAY#<day>`, entity `invitationCount`) is taken before the
 * user directory is asked to email anyone, with a conditional ADD: at INVITATIONS_PER_DAY it refuses (429).
 */
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { ConflictError, NotFoundError, RateLimitedError } from "../../domain/errors.js";
import {
  INVITATIONS_PER_DAY,
  type Invitation,
  isPending,
  secondsUntilNextUtcDay,
  utcDay,
} from "../../domain/invitation.js";
import type { Membership } from "../../domain/membership.js";
import { isOrganisationId } from "../../domain/organisation.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { defineEntity, type Item } from "../table/entity.js";
import {
  INVITATION_PREFIX,
  invitationCountKey,
  invitationKey,
  organisationPartition,
  USER_INVITATION_PREFIX,
  userInvitationKey,
  userPartition,
} from "../table/keys.js";
import { TTL_ATTRIBUTE } from "../table/table-definition.js";
import { getItem, putItem, queryAll, type TransactItem, transact, updateItem } from "../table/table-operations.js";
import {
  findMembership,
  type MemberActor,
  memberAuditPut,
  newMembershipItems,
  notMemberCheck,
} from "./membership-store.js";
import { organisationExistsCheck } from "./organisation-store.js";

export const INVITATION_ENTITY = "invitation";
export const INVITATION_COUNT_ENTITY = "invitationCount";

const DAY_SECONDS = 86_400;

const INVITATION_FIELDS = {
  orgId: "string",
  userId: "string",
  email: "string",
  role: "string",
  invitedBy: "string",
  invitedById: "string",
  createdAt: "string",
  expiresAt: "string",
} as const;

/** DynamoDB deletes the item some time after it expires (epoch seconds). */
function expiryTtl(invitation: Invitation): number {
  return Math.ceil(Date.parse(invitation.expiresAt) / 1000);
}

/** An invitation under its organisation: the owners' list, one per person (`INVITATION#<userId>`). */
const invitationEntity = defineEntity<Invitation, Invitation>({
  tag: INVITATION_ENTITY,
  fields: INVITATION_FIELDS,
  storageAttributes: [TTL_ATTRIBUTE],
  key: (invitation) => invitationKey(invitation.orgId, invitation.userId),
  attributes: (invitation) => ({ ...invitation, [TTL_ATTRIBUTE]: expiryTtl(invitation) }),
});

/** The same invitation under the invited user (`INVITATION#<orgId>`): theirs to accept or decline. */
const userInvitationEntity = defineEntity<Invitation, Invitation>({
  tag: INVITATION_ENTITY,
  fields: INVITATION_FIELDS,
  storageAttributes: [TTL_ATTRIBUTE],
  key: (invitation) => userInvitationKey(invitation.userId, invitation.orgId),
  attributes: (invitation) => ({ ...invitation, [TTL_ATTRIBUTE]: expiryTtl(invitation) }),
});

const ALREADY_MEMBER = (email: string, orgId: string) => `${email} is already a member of organisation ${orgId}`;
const ALREADY_INVITED = (email: string, orgId: string) =>
  `${email} already has a pending invitation to organisation ${orgId}; revoke it first to invite them again`;
const ORGANISATION_NOT_FOUND = (orgId: string) => `Organisation ${orgId} not found`;
const NO_INVITATION = (orgId: string) => `You have no pending invitation to organisation ${orgId}`;
const EXPIRED_INVITATION = (invitation: Invitation) =>
  `Your invitation to organisation ${invitation.orgId} expired at ${invitation.expiresAt}; ask one of its owners to invite you again`;
const NO_INVITATION_OF = (orgId: string, userId: string) =>
  `User ${userId} has no pending invitation to organisation ${orgId}`;
const DAILY_LIMIT = (orgId: string) =>
  `Organisation ${orgId} has sent ${INVITATIONS_PER_DAY} invitations today, the most allowed per day; ` +
  "try again after midnight UTC (see Retry-After)";

/**
 * Runs a read-then-transact change; when DynamoDB cancels its transaction because another transaction was
 * changing the same items at that moment (`TransactionConflict`: an acceptance racing a revocation), it is
 * run once more from its read, which then sees the other's outcome. A second conflict is a 409.
 */
async function onceMoreOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
  const conflicted = (error: unknown) =>
    error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((reason) => reason.Code === "TransactionConflict");
  try {
    return await attempt();
  } catch (error) {
    if (!conflicted(error)) throw error;
  }
  try {
    return await attempt();
  } catch (error) {
    if (!conflicted(error)) throw error;
    throw new ConflictError("The invitation was changing during this request; try again", { cause: error });
  }
}

async function queryPending(partition: string, prefix: string, nowMs: number): Promise<Invitation[]> {
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :invitations)",
    ExpressionAttributeValues: { ":pk": partition, ":invitations": prefix },
    ConsistentRead: true,
  });
  return items
    .map(invitationEntity.fromItem)
    .filter((invitation) => isPending(invitation, nowMs))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.userId.localeCompare(b.userId));
}

/** The organisation's pending invitations, oldest first. */
export function listOrganisationInvitations(orgId: string, nowMs = Date.now()): Promise<Invitation[]> {
  return queryPending(organisationPartition(orgId), INVITATION_PREFIX, nowMs);
}

/** The user's pending invitations, oldest first. */
export function listUserInvitations(userId: string, nowMs = Date.now()): Promise<Invitation[]> {
  return queryPending(userPartition(userId), USER_INVITATION_PREFIX, nowMs);
}

/** Refuses (409) to invite a member, or a person with a pending invitation: before anyone is emailed. */
export async function assertInvitable(orgId: string, userId: string, email: string, nowMs = Date.now()) {
  const [membership, item] = await Promise.all([findMembership(orgId, userId), getItem(invitationKey(orgId, userId))]);
  if (membership !== undefined) throw new ConflictError(ALREADY_MEMBER(email, orgId));
  if (item !== undefined && isPending(invitationEntity.fromItem(item), nowMs)) {
    throw new ConflictError(ALREADY_INVITED(email, orgId));
  }
}

/**
 * Counts one invitation of the organisation for today (UTC); 429 with the seconds to midnight when it sent
 * INVITATIONS_PER_DAY today already. Taken before the user directory sends an email, and kept even when
 * the invitation then fails: the email may be gone.
 */
export async function countInvitation(orgId: string, nowMs = Date.now()): Promise<void> {
  const day = utcDay(nowMs);
  const dayStartSeconds = Math.floor(Date.parse(`${day}T00:00:00.000Z`) / 1000);
  try {
    await updateItem({
      Key: invitationCountKey(orgId, day),
      UpdateExpression: "ADD #count :one SET #entity = :entity, #orgId = :orgId, #day = :day, #ttl = :ttl",
      ConditionExpression: "attribute_not_exists(#count) OR #count < :limit",
      ExpressionAttributeNames: {
        "#count": "count",
        "#entity": "entity",
        "#orgId": "orgId",
        "#day": "day",
        "#ttl": TTL_ATTRIBUTE,
      },
      ExpressionAttributeValues: {
        ":one": 1,
        ":limit": INVITATIONS_PER_DAY,
        ":entity": INVITATION_COUNT_ENTITY,
        ":orgId": orgId,
        ":day": day,
        // Kept a day after its own: long enough for any clock skew between containers.
        ":ttl": dayStartSeconds + 2 * DAY_SECONDS,
      },
    });
  } catch (error) {
    if (isConditionFailure(error)) throw new RateLimitedError(DAILY_LIMIT(orgId), secondsUntilNextUtcDay(nowMs));
    throw error;
  }
}

/**
 * Writes a new invitation (replacing an expired one of the same person) with its audit item; 404 for an
 * unknown organisation, 409 when the person became a member or was invited meanwhile.
 */
export function createInvitation(invitation: Invitation, actor: MemberActor, nowMs = Date.now()): Promise<Invitation> {
  return onceMoreOnConflict(() => createInvitationOnce(invitation, actor, nowMs));
}

async function createInvitationOnce(invitation: Invitation, actor: MemberActor, nowMs: number): Promise<Invitation> {
  const { orgId, userId, email, role } = invitation;
  try {
    await transact([
      organisationExistsCheck(orgId),
      notMemberCheck(orgId, userId),
      {
        Put: {
          Item: invitationEntity.toItem(invitation),
          ConditionExpression: "attribute_not_exists(PK) OR #expiresAt <= :now",
          ExpressionAttributeNames: { "#expiresAt": "expiresAt" },
          ExpressionAttributeValues: { ":now": new Date(nowMs).toISOString() },
        },
      },
      putItem(userInvitationEntity.toItem(invitation)),
      memberAuditPut(orgId, userId, "invitation.created", actor, nowMs, {
        email,
        role,
        expiresAt: invitation.expiresAt,
      }),
    ]);
  } catch (error) {
    if (isConditionFailure(error, 0)) throw new NotFoundError(ORGANISATION_NOT_FOUND(orgId));
    if (isConditionFailure(error, 1)) throw new ConflictError(ALREADY_MEMBER(email, orgId));
    if (isConditionFailure(error, 2)) throw new ConflictError(ALREADY_INVITED(email, orgId));
    throw error;
  }
  return invitation;
}

/**
 * Removes both items of a pending invitation, provided it is still the one read (`createdAt`) and has not
 * expired: the first item of each consuming transaction, whose failure means "no longer pending".
 */
function consume(invitation: Invitation, nowMs: number): [TransactItem, TransactItem] {
  return [
    {
      Delete: {
        Key: invitationKey(invitation.orgId, invitation.userId),
        ConditionExpression: "#createdAt = :createdAt AND #expiresAt > :now",
        ExpressionAttributeNames: { "#createdAt": "createdAt", "#expiresAt": "expiresAt" },
        ExpressionAttributeValues: { ":createdAt": invitation.createdAt, ":now": new Date(nowMs).toISOString() },
      },
    },
    { Delete: { Key: userInvitationKey(invitation.userId, invitation.orgId) } },
  ];
}

/** The user's pending invitation to the organisation; 404 saying whether there is none or it expired. */
async function pendingInvitationOf(userId: string, orgId: string, nowMs: number): Promise<Invitation> {
  // Not an organisation id (from the path): no key is built of it.
  if (!isOrganisationId(orgId)) throw new NotFoundError(NO_INVITATION(orgId));
  const item: Item | undefined = await getItem(userInvitationKey(userId, orgId));
  if (item === undefined) throw new NotFoundError(NO_INVITATION(orgId));
  const invitation = userInvitationEntity.fromItem(item);
  if (!isPending(invitation, nowMs)) throw new NotFoundError(EXPIRED_INVITATION(invitation));
  return invitation;
}

/**
 * Whether a user id could be a directory's subject (Cognito's and the local issuer's are UUIDs): 1 to 128
 * characters of letters, digits, `-` and `_`, so that a key built of it stays well within DynamoDB's limits.
 */
function isPlausibleUserId(userId: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}$/.test(userId);
}

/** The invited person, acting on their own invitation (audit actor). */
function invitee(invitation: Invitation): MemberActor {
  return { name: invitation.email, id: invitation.userId };
}

/**
 * The user accepts their invitation: in one transaction it is consumed, the membership written (both
 * items) and audited. 404 without a pending invitation (or an organisation), 409 when they are a member
 * already.
 */
export function acceptInvitation(userId: string, orgId: string, nowMs = Date.now()): Promise<Membership> {
  return onceMoreOnConflict(() => acceptInvitationOnce(userId, orgId, nowMs));
}

async function acceptInvitationOnce(userId: string, orgId: string, nowMs: number): Promise<Membership> {
  const invitation = await pendingInvitationOf(userId, orgId, nowMs);
  const membership: Membership = {
    orgId,
    userId,
    email: invitation.email,
    role: invitation.role,
    createdAt: new Date(nowMs).toISOString(),
  };
  try {
    await transact([
      ...consume(invitation, nowMs),
      organisationExistsCheck(orgId),
      ...newMembershipItems(membership),
      memberAuditPut(orgId, userId, "invitation.accepted", invitee(invitation), nowMs, {
        email: invitation.email,
        role: invitation.role,
        invitedBy: invitation.invitedBy,
      }),
    ]);
  } catch (error) {
    if (isConditionFailure(error, 0)) throw new NotFoundError(NO_INVITATION(orgId));
    if (isConditionFailure(error, 2)) throw new NotFoundError(ORGANISATION_NOT_FOUND(orgId));
    if (isConditionFailure(error, 3)) throw new ConflictError(`You are already a member of organisation ${orgId}`);
    throw error;
  }
  return membership;
}

/** The user declines their invitation: consumed and audited; 404 without a pending one. */
export function declineInvitation(userId: string, orgId: string, nowMs = Date.now()): Promise<void> {
  return onceMoreOnConflict(() => declineInvitationOnce(userId, orgId, nowMs));
}

async function declineInvitationOnce(userId: string, orgId: string, nowMs: number): Promise<void> {
  const invitation = await pendingInvitationOf(userId, orgId, nowMs);
  try {
    await transact([
      ...consume(invitation, nowMs),
      memberAuditPut(orgId, userId, "invitation.declined", invitee(invitation), nowMs, {
        email: invitation.email,
        role: invitation.role,
      }),
    ]);
  } catch (error) {
    if (isConditionFailure(error, 0)) throw new NotFoundError(NO_INVITATION(orgId));
    throw error;
  }
}

/** An owner revokes a pending invitation: consumed and audited; 404 without a pending one. */
export function revokeInvitation(orgId: string, userId: string, actor: MemberActor, nowMs = Date.now()): Promise<void> {
  return onceMoreOnConflict(() => revokeInvitationOnce(orgId, userId, actor, nowMs));
}

async function revokeInvitationOnce(orgId: string, userId: string, actor: MemberActor, nowMs: number): Promise<void> {
  // A user id (from the path) no directory issues: no key is built of it.
  if (!isPlausibleUserId(userId)) throw new NotFoundError(NO_INVITATION_OF(orgId, userId));
  const item = await getItem(invitationKey(orgId, userId));
  const invitation = item === undefined ? undefined : invitationEntity.fromItem(item);
  if (invitation === undefined || !isPending(invitation, nowMs)) {
    throw new NotFoundError(NO_INVITATION_OF(orgId, userId));
  }
  try {
    await transact([
      ...consume(invitation, nowMs),
      memberAuditPut(orgId, userId, "invitation.revoked", actor, nowMs, {
        email: invitation.email,
        role: invitation.role,
      }),
    ]);
  } catch (error) {
    if (isConditionFailure(error, 0)) throw new NotFoundError(NO_INVITATION_OF(orgId, userId));
    throw error;
  }
}
