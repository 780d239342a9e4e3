/**
 * The key feedback tokens are signed with: derived from the deployment's secret (service-secret.ts) under a label
 * of its own, so a feedback token's signature can never pass as a paging cursor's, nor the reverse, and no new
 * secret has to be created at deployment. Another deployment (another secret) cannot verify this one's tokens.
 */
import { createHmac } from "node:crypto";
import { serviceSecret } from "../store/table/service-secret.js";

const LABEL = "ats feedback-token signing key v1";

let key: Promise<Buffer> | undefined;

export function feedbackTokenKey(): Promise<Buffer> {
  key ??= serviceSecret()
    .then((secret) => createHmac("sha256", secret).update(LABEL).digest())
    .catch((error: unknown) => {
      key = undefined;
      throw error;
    });
  return key;
}
