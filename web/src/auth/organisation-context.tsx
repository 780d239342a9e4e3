/** The organisation the console acts for (remembered in localStorage) and the user's role in it. */
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

export function OrganisationProvider({ me, children }: { me: Me; children: ReactNode }) {
  const [chosen, setChosen] = useState<string | null>(remembered);
  const current = me.organisations.find((org) => org.orgId === chosen) ?? me.organisations[0];
  const setOrgId = useCallback((orgId: string) => {
    setChosen(orgId);
    try {
      localStorage.setItem(STORAGE_KEY, orgId);
    } catch {
      // Private mode: the choice lasts for this page only.
    }
  }, []);
  const value = useMemo<OrganisationState | null>(
    () => (current === undefined ? null : { me, orgId: current.orgId, role: current.role, setOrgId }),
    [me, current, setOrgId],
  );
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
