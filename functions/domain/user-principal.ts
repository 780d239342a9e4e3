import type { Role } from "./membership.js";

/** A signed-in user acting for one organisation (key-management routes). */
export interface UserPrincipal {
  /** The identity provider's subject (Cognito `sub`). */
  readonly userId: string;
  /** Human-readable identity used in audit records (`username`/email claim). */
  readonly username: string;
  readonly orgId: string;
  readonly role: Role;
}
