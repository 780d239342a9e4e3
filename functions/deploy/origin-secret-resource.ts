/**
 * CloudFormation custom resource (`Custom::OriginSecret`) that makes, at
 * deployment, the secret CloudFront sends to the HTTP API with every `/api/*`
 * request when edge protection is on (functions/edge/origin-verify.ts): 32
 * random bytes, base64url. It exists only in the deployed configuration (the
 * distribution's origin header and the authorizer's environment), never in
 * the repository or the synthesized template, and is returned with `NoEcho`
 * so CloudFormation masks it.
 *
 * CloudFormation keeps a custom resource's attributes until the resource is
 * updated, and this one has no properties to update: the secret stays the
 * same across deployments. A replaced function (a new service token) makes an
 * Update, which draws a new secret under a new physical id; CloudFront then
 * sends the new value once its configuration has propagated. Delete has
 * nothing to remove.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { CloudFormationCustomResourceEvent } from "aws-lambda";
import { type CustomResourceOutcome, failureReason, outcomeFor, sendOutcome } from "./custom-resource-response.js";

/** Bytes of randomness in a secret (256 bits). */
export const ORIGIN_SECRET_BYTES = 32;

/** A new secret: {@link ORIGIN_SECRET_BYTES} random bytes as base64url (43 characters, valid in an HTTP header). */
export function newOriginSecret(): string {
  return randomBytes(ORIGIN_SECRET_BYTES).toString("base64url");
}

export async function handler(event: CloudFormationCustomResourceEvent): Promise<CustomResourceOutcome> {
  let outcome: CustomResourceOutcome;
  if (event.RequestType === "Delete") {
    outcome = { Status: "SUCCESS", ...outcomeFor(event, event.PhysicalResourceId) };
  } else {
    // The physical id is public (stack events); it never carries the secret.
    const physicalId = `origin-secret-${randomUUID()}`;
    try {
      outcome = {
        Status: "SUCCESS",
        ...outcomeFor(event, physicalId),
        NoEcho: true,
        Data: { Secret: newOriginSecret() },
      };
    } catch (error) {
      outcome = { Status: "FAILED", Reason: failureReason(error), ...outcomeFor(event, physicalId) };
    }
  }
  await sendOutcome(event, outcome);
  return outcome;
}
