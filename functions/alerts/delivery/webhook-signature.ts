/**
 * The webhook signature (issue 34's contract): `ats-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
 * "<t>.<raw body>")>`. A receiver recomputes the HMAC over the raw body it received, compares in constant time and
 * refuses a `t` more than {@link SIGNATURE_TOLERANCE_SECONDS} away from its clock (a replayed request). The key is
 * the secret string itself (its UTF-8 bytes), so any language's HMAC verifies it; docs/alert-destinations.md has
 * Node and Python versions of {@link verifyWebhookSignature}, checked against the same vectors by the unit tests.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "ats-signature";
export const NOTIFICATION_ID_HEADER = "ats-notification-id";
/** How old (or how far ahead) a signature's `t` may be. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** A signing secret: `whsec_` and 32 random bytes in base64url. */
export const SIGNING_SECRET_PREFIX = "whsec_";

export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;
}

function hmacHex(secret: string, timestamp: number, rawBody: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex");
}

/** The `ats-signature` header value of a body sent at `timestamp` (unix seconds). */
export function signatureHeader(secret: string, rawBody: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmacHex(secret, timestamp, rawBody)}`;
}

/**
 * Whether `header` signs `rawBody` with `secret` at a time within the tolerance of `nowSeconds`. Several `v1`
 * values are accepted (any one matching), for a future overlap of old and new secrets.
 */
export function verifyWebhookSignature(
  header: string | undefined,
  rawBody: string,
  secret: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): boolean {
  if (header === undefined || header.length > 1000) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [name, value] = part.trim().split("=", 2);
    if (name === "t" && value !== undefined && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (name === "v1" && value !== undefined) signatures.push(value);
  }
  if (timestamp === undefined || Math.abs(nowSeconds - timestamp) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, rawBody), "hex");
  return signatures.some((signature) => {
    if (!/^[0-9a-f]{64}$/.test(signature)) return false;
    return timingSafeEqual(Buffer.from(signature, "hex"), expected);
  });
}
