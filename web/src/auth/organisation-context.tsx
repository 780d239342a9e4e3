/**
 * The organisation the console acts for and the user's role in it. It is always one the user chose: the
 * only one they belong to, the one they picked (remembered in localStorage), or the one whose invitation
 * they just accepted. With several organisations and no choice yet, nothing is picked for them: the
 * provider shows `chooser` instead of its children. Invitations are never organisations.
 */
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import type { Me, Role } from "../api/types";

const STORAGE_KEY = "ats.orgId";

export interface OrganisationState {
  me: Me;
  orgId: string;
  role: Role;
  setOrgId: (orgId: string) => void;
}

const OrganisationContext = createContext<OrganisationState | null>(null);

function remembered(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Remembers the user's choice of organisation (also before the provider exists: an accepted invitation). */
export function rememberOrganisation(orgId: string): void {
  try {
    localStorage.setItem(STORAGE_KEY, orgId);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
}

/** The organisation the user chose among theirs, if any: the remembered one, or the only one. */
export function chosenOrganisation(me: Me, chosen: string | null): Me["organisations"][number] | undefined {
  const picked = me.organisations.find((org) => org.orgId === chosen);
  if (picked !== undefined) return picked;
  return me.organisations.length === 1 ? me.organisations[0] : undefined;
}

export function OrganisationProvider({
  me,
  children,
  chooser,
}: {
  me: Me;
  children: ReactNode;
  /** Shown while the user belongs to several organisations and has chosen none: it calls `choose`. */
  chooser: (choose: (orgId: string) => void) => ReactNode;
}) {
  const [chosen, setChosen] = useState<string | null>(remembered);
  // Nothing chosen here yet: a choice remembered since (an invitation accepted on the chooser) counts.
  const current = chosenOrganisation(me, chosen ?? remembered());
  const setOrgId = useCallback((orgId: string) => {
    setChosen(orgId);
    rememberOrganisation(orgId);
  }, []);
  const value = useMemo<OrganisationState | null>(
    () => (current === undefined ? null : { me, orgId: current.orgId, role: current.role, setOrgId }),
    [me, current, setOrgId],
  );
  if (value === null) return <>{chooser(setOrgId)}</>;
  return <OrganisationContext value={value}>{children}</OrganisationContext>;
}

export function useOptionalOrganisation(): OrganisationState | null {
  return useContext(OrganisationContext);
}

export function useOrganisation(): OrganisationState {
  const value = useContext(OrganisationContext);
  if (value === null) throw new Error("useOrganisation needs an OrganisationProvider with an organisation");
  return value;
}

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/** Whether `role` is at least `required`. */
export function hasRole(role: Role, required: Role): boolean {
  return RANK[role] >= RANK[required];
}
