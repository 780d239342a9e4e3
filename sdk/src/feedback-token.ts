/**
 * End-user feedback tokens (issue 33): minted by your backend for the session a user sees, handed to the browser,
 * which posts the user's score with it (`POST /api/public/feedback`) and can do nothing else. Minting is a direct
 * request, never queued: the page needs the token now.
 */

/** What a token is bound to and how long it lives. */
export interface FeedbackTokenOptions {
  /** An event of the session: the scores posted with the token go to it. */
  readonly eventId?: string;
  /** Seconds until the token expires: 3,600 when absent, at most 86,400. */
  readonly expiresInSeconds?: number;
  /** The score names the token may write (1 to 10); absent: any name. */
  readonly names?: readonly string[];
}

/** A minted token: give `token` to the browser (`Authorization: Bearer <token>`). */
export interface FeedbackToken {
  /** `atsf_…`: the bearer token the browser sends. */
  readonly token: string;
  /** `fbt_…`: the `author.id` of the scores posted with it. */
  readonly tokenId: string;
  /** When it stops working (ISO 8601). */
  readonly expiresAt: string;
}

/** The minting request's body. */
export function feedbackTokenBody(sessionId: string, options: FeedbackTokenOptions): Record<string, unknown> {
  return {
    sessionId,
    ...(options.eventId === undefined ? {} : { eventId: options.eventId }),
    ...(options.expiresInSeconds === undefined ? {} : { expiresInSeconds: options.expiresInSeconds }),
    ...(options.names === undefined ? {} : { names: [...options.names] }),
  };
}

/** The token of a 201 answer's body, or undefined when the body is not one. */
export function feedbackTokenOf(body: unknown): FeedbackToken | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { token, tokenId, expiresAt } = body as Record<string, unknown>;
  if (typeof token !== "string" || typeof tokenId !== "string" || typeof expiresAt !== "string") return undefined;
  return { token, tokenId, expiresAt };
}
