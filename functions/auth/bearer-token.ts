import { UnauthorizedError } from "../domain/errors.js";

/** The token of an `Authorization: Bearer <token>` header, or a 401 with the given messages. */
export function bearerToken(authorization: string | undefined, messages: { missing: string; invalid: string }): string {
  if (authorization === undefined || authorization.trim() === "") throw new UnauthorizedError(messages.missing);
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization.trim());
  if (!match?.[1]) throw new UnauthorizedError(messages.invalid);
  return match[1];
}
