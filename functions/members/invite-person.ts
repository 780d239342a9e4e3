/**
 * Inviting a person to an organisation, in the order that spends nothing on a refusal:
 *   1. find the person in the user directory (sends nothing);
 *   2. known already: refuse a member or a person with a pending invitation (409), before any email;
 *   3. count the invitation for today (429 at INVITATIONS_PER_DAY): before the directory may email;
 *   4. a person new to the directory, or who never signed in, gets the directory's sign-in email;
 *   5. write the invitation with its audit item (the transaction checks 2 again).
 * Nobody becomes a member here: that is theirs to accept (invitation-store.ts acceptInvitation).
 */
import type { UserDirectory } from "../directory/user-directory.js";
import { type Invitation, invitationExpiry } from "../domain/invitation.js";
import type { Role } from "../domain/membership.js";
import type { UserPrincipal } from "../domain/user-principal.js";
import { assertInvitable, countInvitation, createInvitation } from "../store/members/invitation-store.js";
import { findMembership } from "../store/members/membership-store.js";

export interface InvitationRequest {
  /** A valid email address, normalised (domain/email-address.ts). */
  readonly email: string;
  readonly role: Role;
}

export async function invitePerson(
  owner: UserPrincipal,
  request: InvitationRequest,
  directory: UserDirectory,
  nowMs = Date.now(),
): Promise<Invitation> {
  const { orgId } = owner;
  const found = await directory.findUser(request.email);
  if (found !== undefined) await assertInvitable(orgId, found.userId, request.email, nowMs);
  await countInvitation(orgId, nowMs);
  const user = found !== undefined && !found.firstSignInPending ? found : await directory.prepareSignIn(request.email);
  // Access tokens carry no email: the owner's membership records the one they were invited with.
  const ownerEmail = (await findMembership(orgId, owner.userId))?.email ?? owner.username;
  return createInvitation(
    {
      orgId,
      userId: user.userId,
      email: request.email,
      role: request.role,
      invitedBy: ownerEmail,
      invitedById: owner.userId,
      createdAt: new Date(nowMs).toISOString(),
      expiresAt: invitationExpiry(nowMs),
    },
    { name: owner.username, id: owner.userId },
    nowMs,
  );
}
