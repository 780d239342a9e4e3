/** Organisation membership of signed-in users, and what each role may do. */

export const ROLES = ["member", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Whether `role` carries at least the rights of `minimum` (owner ⊇ admin ⊇ member). */
export function hasRole(role: Role, minimum: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(minimum);
}

export interface Membership {
  readonly orgId: string;
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  readonly createdAt: string;
}

/**
 * How a role requirement reads in a refusal: `owner` for the top role (nothing is above it),
 * `admin or above` for the others.
 */
export function roleRequirement(minimum: Role): string {
  return ROLES.indexOf(minimum) === ROLES.length - 1 ? minimum : `${minimum} or above`;
}
