/**
 * Opaque, tamper-evident paging cursors. A cursor carries DynamoDB's
 * LastEvaluatedKey and a digest of what it pages (tenant, route, filters),
 * HMAC-signed with a per-deployment secret kept in the table (created on
 * first use, read once per container). A forged, foreign or malformed
 * cursor is a 400 — never a page of someone else's data.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { ValidationError } from "../domain/errors.js";
import { documentClient, tableName } from "./dynamo-client.js";
import { serviceSecretKey } from "./keys.js";

let secret: Promise<Buffer> | undefined;

async function loadSecret(): Promise<Buffer> {
  const read = async () =>
    (await documentClient.send(new GetCommand({ TableName: tableName, Key: serviceSecretKey(), ConsistentRead: true })))
      .Item?.secret;
  const existing = await read();
  if (typeof existing === "string") return Buffer.from(existing, "base64");
  const fresh = randomBytes(32).toString("base64");
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...serviceSecretKey(), entity: "serviceSecret", secret: fresh },
        ConditionExpression: "attribute_not_exists(PK)",
      }),
    );
    return Buffer.from(fresh, "base64");
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return Buffer.from(String(await read()), "base64");
  }
}

function signingSecret(): Promise<Buffer> {
  secret ??= loadSecret().catch((error: unknown) => {
    secret = undefined;
    throw error;
  });
  return secret;
}

/** What a cursor is valid for: cursors never move between tenants, routes or filter sets. */
export function cursorScope(parts: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 22);
}

export async function encodeCursor(lastKey: Record<string, unknown>, scope: string): Promise<string> {
  const payload = Buffer.from(JSON.stringify({ k: lastKey, s: scope })).toString("base64url");
  const signature = createHmac("sha256", await signingSecret())
    .update(payload)
    .digest("base64url");
  return `${payload}.${signature}`;
}

const INVALID = "Invalid cursor: pass back the nextCursor of the previous page of the same query unchanged";

export async function decodeCursor(cursor: string, scope: string): Promise<Record<string, unknown>> {
  const invalid = () => new ValidationError(INVALID, [{ path: "cursor", message: "Invalid cursor" }]);
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined) throw invalid();
  const expected = createHmac("sha256", await signingSecret())
    .update(payload)
    .digest();
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  const { k, s } = (decoded ?? {}) as { k?: unknown; s?: unknown };
  if (s !== scope || typeof k !== "object" || k === null) throw invalid();
  return k as Record<string, unknown>;
}
