/** GET /console-config.json: how this deployment signs people in. */
export interface CognitoAuthConfig {
  kind: "cognito";
  domain: string;
  clientId: string;
  redirectUri: string;
  logoutUri: string;
}

export type AuthConfig = { kind: "local" } | CognitoAuthConfig;

export interface ConsoleConfig {
  auth: AuthConfig;
}

function isCognito(value: Record<string, unknown>): boolean {
  return ["domain", "clientId", "redirectUri", "logoutUri"].every((field) => typeof value[field] === "string");
}

export async function fetchConsoleConfig(): Promise<ConsoleConfig> {
  const response = await fetch("/console-config.json", { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`The console configuration could not be loaded (HTTP ${response.status}).`);
  const body: unknown = await response.json();
  const auth = typeof body === "object" && body !== null ? (body as { auth?: unknown }).auth : undefined;
  if (typeof auth === "object" && auth !== null) {
    const record = auth as Record<string, unknown>;
    if (record.kind === "local") return { auth: { kind: "local" } };
    if (record.kind === "cognito" && isCognito(record)) return { auth: record as unknown as CognitoAuthConfig };
  }
  throw new Error("The console configuration is not valid.");
}
