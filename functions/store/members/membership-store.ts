/**
 * Organisation membership of signed-in users, stored twice in one
 * transaction: under the organisation (`ORG#<org>` / `MEMBER#<user>`, to list
 * members) and under the user (`USER#<user>` / `ORG#<org>`, so a request
 * resolves the caller's organisations with one query).
 *
 * Changes made through the members API (an invitation created, accepted,
 * declined or revoked — invitation-store.ts —, a role change, a removal) write
 * an audit item (`AUDIT#MEMBER#<user>#<auditId>`, entity `memberAudit`) in the
 * same transaction. Nobody is added without their consent: a membership comes
 * from an accepted invitation (or from the operator CLI). The last owner of an organisation cannot be demoted or
 * removed: the transaction checks that another member is still an owner, so
 * two owners demoting each other at once cannot both succeed (DynamoDB
 * transactions are serialisable; the loser sees the check fail and gets 409).
 */
import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { ConflictError, NotFoundError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { Membership, Role } from "../../domain/membership.js";
import { defineEntity } from "../table/entity.js";
import {
  type ItemKey,
  MEMBERSHIP_PREFIX,
  memberAuditKey,
  membershipKey,
  organisationPartition,
  USER_MEMBERSHIP_PREFIX,
  userMembershipKey,
  userPartition,
} from "../table/keys.js";
import {
  ABSENT,
  EXISTS,
  getItem,
  putIfAbsentItem,
  putItem,
  queryAll,
  type TransactItem,
  transact,
} from "../table/table-operations.js";
import { organisationExistsCheck } from "./organisation-store.js";

export const MEMBERSHIP_ENTITY = "membership";
export const MEMBER_AUDIT_ENTITY = "memberAudit";

export type MemberAuditAction =
  | "invitation.created"
  | "invitation.accepted"
  | "invitation.declined"
  | "invitation.revoked"
  | "member.role_changed"
  | "member.removed";

/** Who changed a membership, as recorded in its audit item. */
export interface MemberActor {
  readonly name: string;
  readonly id: string;
}

const MEMBERSHIP_FIELDS = { orgId: "string", userId: "string", email: "string", role: "string" } as const;

/** A change of a membership, in the organisation's partition (`AUDIT#MEMBER#<user>#<auditId>`). */
export interface MemberAuditRecord {
  readonly id: string;
  readonly orgId: string;
  readonly userId: string;
  readonly action: MemberAuditAction;
  readonly actor: string;
  readonly actorId: string;
  readonly at: string;
  readonly details: Readonly<Record<string, string>>;
}

const memberAuditEntity = defineEntity<MemberAuditRecord, MemberAuditRecord>({
  tag: MEMBER_AUDIT_ENTITY,
  fields: {
    id: "string",
    orgId: "string",
    userId: "string",
    action: "string",
    actor: "string",
    actorId: "string",
    at: "string",
    details: "object",
  },
  key: (audit) => memberAuditKey(audit.orgId, audit.userId, audit.id),
  attributes: (audit) => ({ ...audit }),
});

/** A membership under its organisation (`ORG#<org>` / `MEMBER#<user>`): the members list. */
const membershipEntity = defineEntity<Membership, Membership>({
  tag: MEMBERSHIP_ENTITY,
  fields: MEMBERSHIP_FIELDS,
  key: (membership) => membershipKey(membership.orgId, membership.userId),
  attributes: (membership) => ({ ...membership }),
});

/** The same membership under its user (`USER#<user>` / `ORG#<org>`): a user's organisations in one query. */
const userMembershipEntity = defineEntity<Membership, Membership>({
  tag: MEMBERSHIP_ENTITY,
  fields: MEMBERSHIP_FIELDS,
  key: (membership) => userMembershipKey(membership.userId, membership.orgId),
  attributes: (membership) => ({ ...membership }),
});

/** Adds a user to an existing organisation, or changes their role. */
export async function putMembership(input: Omit<Membership, "createdAt">, nowMs = Date.now()): Promise<Membership> {
  const membership: Membership = { ...input, createdAt: new Date(nowMs).toISOString() };
  await transact([
    organisationExistsCheck(input.orgId),
    putItem(membershipEntity.toItem(membership)),
    putItem(userMembershipEntity.toItem(membership)),
  ]);
  return membership;
}

/**
 * The items of a new membership (one transaction's worth): under the organisation, refused when the user is
 * a member already (its condition failure says so), and under the user.
 */
export function newMembershipItems(membership: Membership): [TransactItem, TransactItem] {
  return [putIfAbsentItem(membershipEntity.toItem(membership)), putItem(userMembershipEntity.toItem(membership))];
}

/** A transaction item that fails when the user is a member of the organisation already. */
export function notMemberCheck(orgId: string, userId: string): TransactItem {
  return { ConditionCheck: { Key: membershipKey(orgId, userId), ConditionExpression: ABSENT } };
}

/** The user's membership of the organisation, if any (strongly consistent). */
export async function findMembership(orgId: string, userId: string): Promise<Membership | undefined> {
  const item = await getItem(membershipKey(orgId, userId));
  return item === undefined ? undefined : membershipEntity.fromItem(item);
}

/** Every organisation the user belongs to, with the role in each. */
export async function listUserMemberships(userId: string): Promise<Membership[]> {
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :orgs)",
    ExpressionAttributeValues: { ":pk": userPartition(userId), ":orgs": USER_MEMBERSHIP_PREFIX },
    ConsistentRead: true,
  });
  return items.map(userMembershipEntity.fromItem);
}

/** Whether the organisation has any member yet. */
export async function hasMembers(orgId: string): Promise<boolean> {
  const items = await queryAll(
    {
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :members)",
      ExpressionAttributeValues: { ":pk": organisationPartition(orgId), ":members": MEMBERSHIP_PREFIX },
      ConsistentRead: true,
    },
    { limit: 1 },
  );
  return items.length > 0;
}

/** Every member of the organisation (strongly consistent), in user-id order. */
export async function listMembers(orgId: string): Promise<Membership[]> {
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :members)",
    ExpressionAttributeValues: { ":pk": organisationPartition(orgId), ":members": MEMBERSHIP_PREFIX },
    ConsistentRead: true,
  });
  return items.map(membershipEntity.fromItem);
}

/** The audit item of a membership or invitation change, for the change's transaction. */
export function memberAuditPut(
  orgId: string,
  userId: string,
  action: MemberAuditAction,
  actor: MemberActor,
  nowMs: number,
  details: Record<string, string>,
): TransactItem {
  return putIfAbsentItem(
    memberAuditEntity.toItem({
      id: newId("audit", nowMs),
      orgId,
      userId,
      action,
      actor: actor.name,
      actorId: actor.id,
      at: new Date(nowMs).toISOString(),
      details,
    }),
  );
}

const LAST_OWNER = (orgId: string) =>
  `This is the last owner of organisation ${orgId}: make another member owner first (an organisation always keeps an owner)`;

/**
 * The member `userId` of the organisation, and a condition that another member is still an owner when
 * the change takes an owner away (undefined when it does not): the last-owner rule.
 */
async function memberAndOwnerGuard(orgId: string, userId: string, losesOwner: (member: Membership) => boolean) {
  const members = await listMembers(orgId);
  const member = members.find((candidate) => candidate.userId === userId);
  if (member === undefined) throw new NotFoundError(`User ${userId} is not a member of organisation ${orgId}`);
  if (!losesOwner(member)) return { member, guard: undefined };
  const otherOwner = members.find((candidate) => candidate.userId !== userId && candidate.role === "owner");
  if (otherOwner === undefined) throw new ConflictError(LAST_OWNER(orgId));
  return {
    member,
    guard: {
      ConditionCheck: {
        Key: membershipKey(orgId, otherOwner.userId),
        ConditionExpression: "#role = :owner",
        ExpressionAttributeNames: { "#role": "role" },
        ExpressionAttributeValues: { ":owner": "owner" },
      },
    },
  };
}

/**
 * Runs a membership change read-then-transact; when its transaction is cancelled (the member or the
 * guarding owner changed meanwhile), the members are read again once (another owner may remain, the
 * member may be gone: 404) before giving up with 409.
 */
async function withOwnerGuard<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    return attempt();
  }
}

/** Gives a member another role (unchanged role: nothing written); 404 unknown member, 409 the last owner. */
export async function changeMemberRole(
  orgId: string,
  userId: string,
  role: Role,
  actor: MemberActor,
  nowMs = Date.now(),
): Promise<Membership> {
  return withOwnerGuard(async () => {
    const { member, guard } = await memberAndOwnerGuard(
      orgId,
      userId,
      (current) => current.role === "owner" && role !== "owner",
    );
    if (member.role === role) return member;
    const update = (key: ItemKey): TransactItem => ({
      Update: {
        Key: key,
        UpdateExpression: "SET #role = :role",
        ConditionExpression: `${EXISTS} AND #role = :current`,
        ExpressionAttributeNames: { "#role": "role" },
        ExpressionAttributeValues: { ":role": role, ":current": member.role },
      },
    });
    await transact([
      update(membershipKey(orgId, userId)),
      update(userMembershipKey(userId, orgId)),
      memberAuditPut(orgId, userId, "member.role_changed", actor, nowMs, { from: member.role, to: role }),
      ...(guard === undefined ? [] : [guard]),
    ]);
    return { ...member, role };
  }).catch(lastOwnerOnSecondFailure(orgId));
}

/** Removes a member (their user stays in the user directory); 404 unknown member, 409 the last owner. */
export async function removeMember(orgId: string, userId: string, actor: MemberActor, nowMs = Date.now()) {
  await withOwnerGuard(async () => {
    const { member, guard } = await memberAndOwnerGuard(orgId, userId, (current) => current.role === "owner");
    const remove = (key: ItemKey): TransactItem => ({
      Delete: { Key: key, ConditionExpression: EXISTS },
    });
    await transact([
      remove(membershipKey(orgId, userId)),
      remove(userMembershipKey(userId, orgId)),
      memberAuditPut(orgId, userId, "member.removed", actor, nowMs, { email: member.email, role: member.role }),
      ...(guard === undefined ? [] : [guard]),
    ]);
  }).catch(lastOwnerOnSecondFailure(orgId));
}

/** A change that lost a race twice: the membership or the organisation's owners kept changing under it. */
function lastOwnerOnSecondFailure(orgId: string) {
  return (error: unknown): never => {
    if (error instanceof TransactionCanceledException) {
      throw new ConflictError(`Organisation ${orgId}'s members changed during this request; try again`);
    }
    throw error;
  };
}

export type { Role };
