/**
 * CloudFormation custom resource (`Custom::CursorSecret`) that creates the
 * cursor-signing secret in the table at deployment, so no request-serving
 * function needs permission to write it. Create and Update create the secret
 * only if the table has none (an existing secret is kept: replacing it would
 * invalidate every cursor in flight); Delete leaves it with the retained table.
 *
 * A Lambda-backed custom resource must always answer CloudFormation (a PUT of
 * the outcome to the event's presigned `ResponseURL`), or the stack waits for
 * an hour: every failure is reported as FAILED with its message.
 */
import type { CloudFormationCustomResourceEvent } from "aws-lambda";
import { ensureCursorSecret } from "../store/table/cursor-secret.js";
import { documentClient } from "../store/table/dynamo-client.js";

/** The one physical id of the resource: the secret is per table, never replaced. */
export const CURSOR_SECRET_RESOURCE_ID = "cursor-secret";

export interface CustomResourceOutcome {
  readonly Status: "SUCCESS" | "FAILED";
  readonly Reason?: string;
  readonly PhysicalResourceId: string;
  readonly StackId: string;
  readonly RequestId: string;
  readonly LogicalResourceId: string;
  readonly Data: { readonly Created: string };
}

async function apply(event: CloudFormationCustomResourceEvent): Promise<boolean> {
  if (event.RequestType === "Delete") return false;
  const table = event.ResourceProperties.TableName;
  if (typeof table !== "string" || table === "") throw new Error("The TableName property is required");
  return ensureCursorSecret(documentClient, table);
}

export async function handler(event: CloudFormationCustomResourceEvent): Promise<CustomResourceOutcome> {
  let outcome: CustomResourceOutcome;
  const common = {
    PhysicalResourceId: CURSOR_SECRET_RESOURCE_ID,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  };
  try {
    const created = await apply(event);
    outcome = { Status: "SUCCESS", ...common, Data: { Created: String(created) } };
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : "Unknown error";
    outcome = { Status: "FAILED", Reason: reason.slice(0, 1000), ...common, Data: { Created: "false" } };
  }
  const body = JSON.stringify(outcome);
  // The presigned URL is signed without a content type: send none.
  const response = await fetch(event.ResponseURL, {
    method: "PUT",
    headers: { "content-type": "", "content-length": String(Buffer.byteLength(body)) },
    body,
  });
  if (!response.ok) throw new Error(`CloudFormation refused the response: HTTP ${response.status}`);
  return outcome;
}
