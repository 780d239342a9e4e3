/** `npm start`'s sign-in: pick one of the local users. */
import { apiErrorFrom } from "../api/errors";
import type { TokenSet } from "./tokens";

export interface LocalUser {
  email: string;
  userId: string;
}

export async function listLocalUsers(): Promise<LocalUser[]> {
  const response = await fetch("/local/users", { headers: { Accept: "application/json" } });
  if (!response.ok) throw await apiErrorFrom(response);
  return (await response.json()) as LocalUser[];
}

export async function localSignIn(email: string): Promise<TokenSet> {
  const response = await fetch("/local/sign-in", {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify({ email }),
  });
  if (!response.ok) throw await apiErrorFrom(response);
  const body = (await response.json()) as { accessToken: string; expiresAt: string };
  return { accessToken: body.accessToken, expiresAt: Date.parse(body.expiresAt) };
}
