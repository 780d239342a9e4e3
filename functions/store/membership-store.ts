/**
 * Organisation membership of signed-in users, stored twice in one
 * transaction: under the organisation (`ORG#<org>` / `MEMBER#<user>`, to list
 * members) and under the user (`USER#<user>` / `ORG#<org>`, so a request
 * resolves the caller's organisations with one query).
 */
import { QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { Membership, Role } from "../domain/membership.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { membershipKey, organisationKey, userMembershipKey, userPartition } from "./keys.js";
import { organisationExistsCheck } from "./organisation-store.js";

export const MEMBERSHIP_ENTITY = "membership";

type Item = Record<string, unknown>;

function membershipFromItem(item: Item): Membership {
  const { PK, SK, entity, ...membership } = item;
  return membership as unknown as Membership;
}

/** Adds a user to an existing organisation, or changes their role. */
export async function putMembership(input: Omit<Membership, "createdAt">, nowMs = Date.now()): Promise<Membership> {
  const membership: Membership = { ...input, createdAt: new Date(nowMs).toISOString() };
  const item = { entity: MEMBERSHIP_ENTITY, ...membership };
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        organisationExistsCheck(input.orgId),
        { Put: { TableName: tableName, Item: { ...membershipKey(input.orgId, input.userId), ...item } } },
        { Put: { TableName: tableName, Item: { ...userMembershipKey(input.userId, input.orgId), ...item } } },
      ],
    }),
  );
  return membership;
}

/** Every organisation the user belongs to, with the role in each. */
export async function listUserMemberships(userId: string): Promise<Membership[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :orgs)",
      ExpressionAttributeValues: { ":pk": userPartition(userId), ":orgs": "ORG#" },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map(membershipFromItem);
}

/** Whether the organisation has any member yet. */
export async function hasMembers(orgId: string): Promise<boolean> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :members)",
      ExpressionAttributeValues: { ":pk": organisationKey(orgId).PK, ":members": "MEMBER#" },
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  return (result.Items ?? []).length > 0;
}

export type { Role };
