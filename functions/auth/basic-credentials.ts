/**
 * HTTP Basic credentials (RFC 7617) as Langfuse's exporters send them: `Authorization: Basic
 * base64(<public key>:<secret key>)`. ats reads the password as an API key and ignores the user name
 * (docs/decisions.md). Accepted only where the route says so (the Langfuse trace path); pure, no I/O.
 */
import { UnauthorizedError } from "../domain/errors.js";

const BASIC = /^Basic(?:\s+(\S*))?\s*$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Longest encoded credentials read: a user name and an API key fit many times over. */
const MAX_ENCODED = 1024;

export const BASIC_INVALID =
  "Invalid Basic credentials: send Authorization: Basic base64(<public key>:<API key>), an ats API key as the password";

/** Whether an `Authorization` header uses the `Basic` scheme (any case). */
export function isBasic(authorization: string): boolean {
  return /^Basic(\s|$)/i.test(authorization.trim());
}

/**
 * The password of `Authorization: Basic <base64(user:password)>`: the text after the first colon of the
 * decoded credentials. A 401 (never an echo of what was sent) when the base64 is malformed, the decoded text is
 * not UTF-8, it has no colon, or the password is empty.
 */
export function basicPassword(authorization: string): string {
  const encoded = BASIC.exec(authorization.trim())?.[1] ?? "";
  if (encoded === "" || encoded.length > MAX_ENCODED || !BASE64.test(encoded)) {
    throw new UnauthorizedError(BASIC_INVALID);
  }
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(encoded, "base64"));
  } catch {
    throw new UnauthorizedError(BASIC_INVALID);
  }
  const colon = decoded.indexOf(":");
  const password = colon < 0 ? "" : decoded.slice(colon + 1);
  if (password === "") throw new UnauthorizedError(BASIC_INVALID);
  return password;
}
