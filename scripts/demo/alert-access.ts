/**
 * `npm run demo -- --alert`'s access to the local stack: its URL and key from local.json (for the runs) and the dev
 * user's token (for the console's routes, organisation `dev`, environment `live`); one call of those routes.
 */
import { join } from "node:path";
import { DEV_ORGANISATION } from "../../local/dev-organisation.js";
import { localJsonPath, readLocalJson, readSettings } from "../../local/settings.js";
import { DemoSetupError, type DemoTarget, resolveTarget } from "./connection.js";

/** The environment the demo's key records into (`ensureDevKey`): the monitor watches it. */
export const DEMO_ENVIRONMENT = "live";
const REQUEST_TIMEOUT_MS = 10_000;

/** What `--alert` works with: the local stack's URL and key (for the runs) and the dev user's token (for the rest). */
export interface AlertAccess {
  readonly target: DemoTarget;
  readonly userToken: string;
  /** Where `npm start` appends EventBridge events (as local-stream-consumer.ts chooses it). */
  readonly notificationsFile: string;
  readonly localJson: string;
}

const trimmedUrl = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim().replace(/\/+$/, "");

/** The local stack's access; a `DemoSetupError` (one line) for another service or a missing local.json. */
export function resolveAlertAccess(env: NodeJS.ProcessEnv = process.env): AlertAccess {
  const settings = readSettings(env);
  const local = readLocalJson(settings);
  const envUrl = trimmedUrl(env.ATS_BASE_URL);
  if (envUrl !== undefined && envUrl !== trimmedUrl(local?.apiUrl)) {
    throw new DemoSetupError(
      `--alert works against the local stack (npm start) only: at ${envUrl}, make monitors and destinations in the console there (its Alerts page).`,
    );
  }
  const path = localJsonPath(settings);
  if (local?.userToken === undefined || local.apiUrl === undefined || local.apiKey === undefined) {
    throw new DemoSetupError(
      `--alert needs the local stack's ${path} (its URL, key and dev user token): start it with \`npm start\` (in another terminal; the same DATA_DIR) and run \`npm run demo -- --alert\` again.`,
    );
  }
  // The runs go with local.json's key (organisation dev, where the monitor is), whatever ATS_API_KEY says.
  const target = resolveTarget({ ...env, ATS_BASE_URL: "", ATS_API_KEY: "" });
  return {
    target,
    userToken: local.userToken,
    notificationsFile: env.SESSION_EVENTS_FILE || join(settings.dataDirectory, "session-notifications.jsonl"),
    localJson: path,
  };
}

/** One call of the console's routes as the dev user; a `DemoSetupError` saying what went wrong otherwise. */
export async function consoleCall<T>(access: AlertAccess, method: string, path: string, body?: unknown): Promise<T> {
  const url = `${access.target.baseUrl}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${access.userToken}`,
        "x-organization-id": DEV_ORGANISATION,
        "x-environment": DEMO_ENVIRONMENT,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new DemoSetupError(`${method} ${url} got no answer (${error instanceof Error ? error.message : error}).`);
  }
  if (response.status === 401) {
    await response.body?.cancel();
    throw new DemoSetupError(
      `The dev user's token in ${access.localJson} was refused (it is valid for 1 hour): restart \`npm start\` for a fresh one and run \`npm run demo -- --alert\` again.`,
    );
  }
  if (!response.ok) {
    const text = (await response.text()).slice(0, 300).replace(/\s+/g, " ");
    throw new DemoSetupError(`${method} ${path} answered ${response.status}: ${text}`);
  }
  return (await response.json()) as T;
}

/** Fails early (before anything is recorded) when the token or the organisation is not usable. */
export async function checkAlertAccess(access: AlertAccess): Promise<void> {
  await consoleCall(access, "GET", "/api/alerts/destinations");
}
