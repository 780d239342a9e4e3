/** How a membership is shown: who, their email, their role, since when. */
import type { Membership } from "../domain/membership.js";

export function memberView(membership: Membership) {
  return {
    userId: membership.userId,
    email: membership.email,
    role: membership.role,
    createdAt: membership.createdAt,
  };
}
