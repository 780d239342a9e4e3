import { UnauthorizedError } from "../domain/errors.js";

/**
 * The 401 messages of one kind of credential: none sent, a header without the `Bearer` scheme (a bare token,
 * `Basic …`, `Token …`: the message says how to send the credential), and a bearer token that is not valid.
 */
export interface BearerMessages {
  readonly missing: string;
  readonly notBearer: string;
  readonly invalid: string;
}

const BEARER = /^Bearer +(\S+)\s*$/i;

/** Whether an `Authorization` header uses the `Bearer` scheme (`Bearer <token>`, any case, one token). */
export function isBearer(authorization: string): boolean {
  return BEARER.test(authorization.trim());
}

/** Whether an `Authorization` header holds an API key (`ats_…`), after `Bearer ` or not (bare, `Basic ats_…`). */
export function holdsApiKey(authorization: string | undefined): boolean {
  return /(^|\s)ats_/i.test(authorization ?? "");
}

/** The token of an `Authorization: Bearer <token>` header, or a 401 with the given messages. */
export function bearerToken(authorization: string | undefined, messages: BearerMessages): string {
  if (authorization === undefined || authorization.trim() === "") throw new UnauthorizedError(messages.missing);
  const match = BEARER.exec(authorization.trim());
  if (!match?.[1]) {
    throw new UnauthorizedError(/^Bearer(\s|$)/i.test(authorization.trim()) ? messages.invalid : messages.notBearer);
  }
  return match[1];
}
