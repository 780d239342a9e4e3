/**
 * Invitations: nobody becomes a member of an organisation without saying yes. An owner invites a person
 * by email with a role; the person, signed in, accepts (then the membership is written) or declines.
 * An invitation is pending until it is accepted, declined or revoked, or until it expires.
 */
import type { Role } from "./membership.js";

/** How long an invitation waits for its answer. */
export const INVITATION_LIFETIME_DAYS = 7;

/**
 * Invitations an organisation may send per UTC day. On AWS an invitation of a person new to the user
 * pool makes Cognito send an email, and Cognito's default email sending allows only a small number of
 * emails a day per user pool (AWS "Quotas in Amazon Cognito"), one pool every organisation of the
 * deployment shares: one organisation must not be able to spend it, nor flood people with invitations.
 */
export const INVITATIONS_PER_DAY = 20;

const DAY_MS = 86_400_000;

export interface Invitation {
  readonly orgId: string;
  /** The invited person's user id (`sub`): their user is found or created when they are invited. */
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  /** The email (or, without one, the username) of the owner who invited them. */
  readonly invitedBy: string;
  readonly invitedById: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

/** When an invitation sent at `nowMs` expires. */
export function invitationExpiry(nowMs: number): string {
  return new Date(nowMs + INVITATION_LIFETIME_DAYS * DAY_MS).toISOString();
}

/** Whether an invitation can still be accepted at `nowMs`. */
export function isPending(invitation: Pick<Invitation, "expiresAt">, nowMs: number): boolean {
  return Date.parse(invitation.expiresAt) > nowMs;
}

/** The UTC day (`YYYY-MM-DD`) of `nowMs`: the period of the daily invitation count. */
export function utcDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/** Whole seconds from `nowMs` to the next UTC midnight (at least 1): when the daily count starts again. */
export function secondsUntilNextUtcDay(nowMs: number): number {
  const nextDay = (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS;
  return Math.max(1, Math.ceil((nextDay - nowMs) / 1000));
}
