/**
 * The answer of a Lambda-backed CloudFormation custom resource: a PUT of the
 * outcome to the event's presigned `ResponseURL`. It must always be sent, or
 * the stack waits until the resource's timeout: every failure is reported as
 * FAILED with its message.
 */
import type { CloudFormationCustomResourceEvent } from "aws-lambda";

export interface CustomResourceOutcome {
  readonly Status: "SUCCESS" | "FAILED";
  readonly Reason?: string;
  readonly PhysicalResourceId: string;
  readonly StackId: string;
  readonly RequestId: string;
  readonly LogicalResourceId: string;
  /** Masks `Data` wherever CloudFormation would show what `Fn::GetAtt` returns. */
  readonly NoEcho?: boolean;
  readonly Data?: Readonly<Record<string, string>>;
}

/** CloudFormation shows at most this much of a reason. */
const MAX_REASON_LENGTH = 1000;

/** A failure's reason: the error's name and message, never a stack trace. */
export function failureReason(error: unknown): string {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : "Unknown error";
  return reason.slice(0, MAX_REASON_LENGTH);
}

/** The outcome's fields that come from the event. */
export function outcomeFor(
  event: CloudFormationCustomResourceEvent,
  physicalResourceId: string,
): Pick<CustomResourceOutcome, "PhysicalResourceId" | "StackId" | "RequestId" | "LogicalResourceId"> {
  return {
    PhysicalResourceId: physicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  };
}

/** Sends the outcome to CloudFormation. */
export async function sendOutcome(
  event: CloudFormationCustomResourceEvent,
  outcome: CustomResourceOutcome,
): Promise<void> {
  const body = JSON.stringify(outcome);
  // The presigned URL is signed without a content type: send none.
  const response = await fetch(event.ResponseURL, {
    method: "PUT",
    headers: { "content-type": "", "content-length": String(Buffer.byteLength(body)) },
    body,
  });
  if (!response.ok) throw new Error(`CloudFormation refused the response: HTTP ${response.status}`);
}
