/**
 * Who deleted what (issue 21): a session's deletion and a user's erasure are attributed to the API key or
 * the signed-in user that asked for them, as key changes are, in an audit item of the organisation and in
 * the request's log line.
 */
import type { Environment } from "./api-key.js";
import type { Principal } from "./principal.js";

export type DeletionAction = "session.deleted" | "user.erasure.requested";

/** The caller a deletion is attributed to: an API key (its id, never the key) or a signed-in user. */
export interface DeletionActor {
  readonly kind: "apiKey" | "user";
  readonly id: string;
}

export interface DeletionAuditRecord {
  readonly id: string;
  readonly orgId: string;
  readonly environment: Environment;
  readonly action: DeletionAction;
  /** The session deleted, or the external user whose data is erased. */
  readonly target: string;
  readonly actor: DeletionActor;
  readonly at: string;
  /** The erasure job of an erasure request; the events deleted with a session. */
  readonly jobId?: string | undefined;
  readonly deletedEvents?: number | undefined;
}

/** The caller a principal's deletion is attributed to. */
export function deletionActorOf(principal: Principal): DeletionActor {
  return principal.signedInUserId === undefined
    ? { kind: "apiKey", id: principal.keyId }
    : { kind: "user", id: principal.signedInUserId };
}
