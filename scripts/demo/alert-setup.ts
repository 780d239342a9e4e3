/**
 * `npm run demo -- --alert`'s destinations and monitor, as the dev user through the console's routes: found by name
 * or created, so a second run changes nothing but what the first could not know (a new ATS_WEBHOOK_URL, a deleted
 * destination).
 */
import type { Destination, DestinationKind } from "../../functions/domain/alert-destination.js";
import type { Monitor, MonitorDefinition } from "../../functions/domain/monitor.js";
import { type AlertAccess, consoleCall } from "./alert-access.js";

export const EVENTBRIDGE_DESTINATION = "Demo: local notifications";
export const WEBHOOK_DESTINATION = "Demo: webhook";
/** A monitor names at most this many destinations (MONITOR_LIMITS). */
const MAX_MONITOR_DESTINATIONS = 5;

export const demoMonitorName = (agent: string): string => `Demo: ${agent} failing`;

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
