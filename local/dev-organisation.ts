/**
 * The development organisation of `npm start`: its API key and its owner.
 * The key is created (and shown) once; later starts reuse the key saved in
 * local.json for as long as it still authenticates. The owner `dev@localhost`
 * gets a fresh access token on every start.
 */
import type { LocalIdentity } from "./local-identity.js";

export const DEV_ORGANISATION = "dev";
export const DEV_USER_EMAIL = "dev@localhost";

export interface DevKey {
  readonly apiKey: string;
  /** True when the key was created by this start (and must be shown). */
  readonly created: boolean;
}

/** Needs the service environment configured (see local-database.ts). */
export async function ensureDevKey(savedKey: string | undefined): Promise<DevKey> {
  const { hashApiKey, parseApiKey } = await import("../functions/domain/api-key.js");
  const { isUsable } = await import("../functions/domain/api-key-record.js");
  const { createApiKey, findCredential } = await import("../functions/store/keys/api-key-store.js");
  const { ensureOrganisation } = await import("../functions/store/members/organisation-store.js");
  const { DEFAULT_SCOPES } = await import("../functions/domain/scopes.js");

  if (savedKey !== undefined && parseApiKey(savedKey) !== undefined) {
    const credential = await findCredential(hashApiKey(savedKey));
    if (credential !== undefined && isUsable(credential, Date.now())) return { apiKey: savedKey, created: false };
  }
  await ensureOrganisation(DEV_ORGANISATION);
  const { plaintext } = await createApiKey(
    { orgId: DEV_ORGANISATION, environment: "live", name: "local development", scopes: DEFAULT_SCOPES },
    { name: "npm start" },
  );
  return { apiKey: plaintext, created: true };
}

/** Makes `dev@localhost` the owner of the dev organisation and returns an access token for it. */
export async function devUserToken(identity: LocalIdentity, issuer: string): Promise<string> {
  const { listUserMemberships, putMembership } = await import("../functions/store/members/membership-store.js");
  const user = identity.ensureUser(DEV_USER_EMAIL);
  const memberships = await listUserMemberships(user.userId);
  if (!memberships.some((membership) => membership.orgId === DEV_ORGANISATION && membership.role === "owner")) {
    await putMembership({ orgId: DEV_ORGANISATION, userId: user.userId, email: user.email, role: "owner" });
  }
  return identity.issueAccessToken(user, issuer);
}
