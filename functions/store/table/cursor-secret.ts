/**
 * The cursor-signing secret's item (`SERVICE` / `CURSOR_SECRET`): created once
 * per table, before any request needs it — at deployment by a CloudFormation
 * custom resource (functions/deploy/cursor-secret-resource.ts), locally by the
 * table setup (local/table-setup.ts), which the tests, benchmarks and
 * `npm start` all use. The read routes only ever read it
 * (functions/store/table/cursor-signing.ts); none of them may write it.
 *
 * Free of environment reads, so the local tools can import it.
 */
import { randomBytes } from "node:crypto";
import { type DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import { isConditionFailure } from "./condition-failure.js";
import { cursorSecretEntity } from "./cursor-secret-item.js";

/** Bytes of randomness of the secret (an HMAC-SHA-256 key of the hash's full block strength). */
export const CURSOR_SECRET_BYTES = 32;

/**
 * Creates the secret unless the table already has one (an existing secret is
 * never replaced: that would invalidate every cursor in flight).
 *
 * @returns whether a secret was created.
 */
export async function ensureCursorSecret(client: Pick<DynamoDBClient, "send">, tableName: string): Promise<boolean> {
  const item = cursorSecretEntity.toItem({ secret: randomBytes(CURSOR_SECRET_BYTES).toString("base64") });
  try {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: marshall(item),
        // Put-if-absent (table-operations.ts ABSENT), written here: this module reads no environment.
        ConditionExpression: "attribute_not_exists(PK)",
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
