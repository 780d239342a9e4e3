/**
 * `npm run demo -- --alert` against the local stack: the dev user's access to the console's routes (local.json's
 * `userToken`, organisation `dev`, environment `live`), and the demo's destinations and monitor found by name or
 * created — so a second run changes nothing but what the first could not know (a new ATS_WEBHOOK_URL).
 */
import { join } from "node:path";
import type { Destination, DestinationKind } from "../../functions/domain/alert-destination.js";
import type { Monitor, MonitorDefinition } from "../../functions/domain/monitor.js";
import { DEV_ORGANISATION } from "../../local/dev-organisation.js";
import { localJsonPath, readLocalJson, readSettings } from "../../local/settings.js";
import { DemoSetupError, type DemoTarget, resolveTarget } from "./connection.js";

export const EVENTBRIDGE_DESTINATION = "Demo: local notifications";
export const WEBHOOK_DESTINATION = "Demo: webhook";
/** The environment the demo's key records into (`ensureDevKey`): the monitor watches it. */
export const DEMO_ENVIRONMENT = "live";
/** A monitor names at most this many destinations (MONITOR_LIMITS). */
const MAX_MONITOR_DESTINATIONS = 5;
const REQUEST_TIMEOUT_MS = 10_000;

export const demoMonitorName = (agent: string): string => `Demo: ${agent} failing`;

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
async function consoleCall<T>(access: AlertAccess, method: string, path: string, body?: unknown): Promise<T> {
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

async function listDestinations(access: AlertAccess): Promise<Destination[]> {
  const { destinations } = await consoleCall<{ destinations: Destination[] }>(
    access,
    "GET",
    "/api/alerts/destinations",
  );
  return destinations;
}

export interface EnsuredDestination {
  readonly destination: Destination;
  readonly change: "created" | "updated" | "unchanged";
  /** A webhook's signing secret: only when it was created by this run (the one time the API shows it). */
  readonly secret?: string;
}

/** The destination named `name` of that kind, created, or set to `url` and enabled when it differs. */
export async function ensureDestination(
  access: AlertAccess,
  name: string,
  kind: DestinationKind,
  url?: string,
): Promise<EnsuredDestination> {
  const destinations = await listDestinations(access);
  const found = destinations.find((destination) => destination.name === name && destination.kind === kind);
  if (found === undefined) {
    const created = await consoleCall<Destination & { secret?: string }>(access, "POST", "/api/alerts/destinations", {
      name,
      kind,
      ...(url === undefined ? {} : { url }),
    });
    const { secret, ...destination } = created;
    return secret === undefined ? { destination, change: "created" } : { destination, change: "created", secret };
  }
  if (found.enabled && (url === undefined || found.url === url)) return { destination: found, change: "unchanged" };
  // Re-enabling also clears the failure count (a receiver that was not running disables it after 10 failures).
  const updated = await consoleCall<Destination>(access, "PUT", `/api/alerts/destinations/${found.id}`, {
    name,
    enabled: true,
    ...(url === undefined ? {} : { url }),
  });
  return { destination: updated, change: "updated" };
}

/** The demo's monitor: failure rate above 25 % over 15 minutes, from 3 sessions on; renotify off, recovery on. */
export function demoMonitorDefinition(agent: string, destinationIds: readonly string[]): MonitorDefinition {
  return {
    name: demoMonitorName(agent),
    description: `Made by \`npm run demo -- --alert\`: ${agent}'s failed runs over the last 15 minutes.`,
    enabled: true,
    metric: "failure_rate",
    filters: { agent },
    windowMinutes: 15,
    comparison: "above",
    warningThreshold: 10,
    alertThreshold: 25,
    minSessions: 3,
    noData: "ok",
    renotifyMinutes: 0,
    notifyOnRecovery: true,
    destinationIds,
  };
}

/** A monitor's definition (what PUT takes), without its id, dates and state. */
function definitionOf(monitor: Monitor): MonitorDefinition {
  const { id, environment, createdAt, updatedAt, createdBy, state, ...definition } = monitor;
  return definition;
}

export interface EnsuredMonitor {
  readonly monitor: Monitor;
  readonly change: "created" | "updated" | "unchanged";
}

/**
 * The monitor "Demo: <agent> failing", created; an existing one is kept as it is (the user may have changed it)
 * except that it is given the destinations it does not name yet (and loses those deleted since, which a PUT refuses).
 */
export async function ensureDemoMonitor(
  access: AlertAccess,
  agent: string,
  destinationIds: readonly string[],
): Promise<EnsuredMonitor> {
  const { monitors } = await consoleCall<{ monitors: Monitor[] }>(access, "GET", "/api/alerts/monitors");
  const found = monitors.find((monitor) => monitor.name === demoMonitorName(agent));
  if (found === undefined) {
    const monitor = await consoleCall<Monitor>(
      access,
      "POST",
      "/api/alerts/monitors",
      demoMonitorDefinition(agent, destinationIds),
    );
    return { monitor, change: "created" };
  }
  const missing = destinationIds.filter((id) => !found.destinationIds.includes(id));
  if (missing.length === 0) return { monitor: found, change: "unchanged" };
  const existing = new Set((await listDestinations(access)).map((destination) => destination.id));
  const kept = found.destinationIds.filter((id) => existing.has(id));
  const merged = [...kept, ...missing].slice(-MAX_MONITOR_DESTINATIONS);
  const monitor = await consoleCall<Monitor>(access, "PUT", `/api/alerts/monitors/${found.id}`, {
    ...definitionOf(found),
    destinationIds: merged,
  });
  return { monitor, change: "updated" };
}
