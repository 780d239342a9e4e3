/** What `npm run demo -- --alert` prints: what it set up, the incident it recorded, and what happens next. */
import { DEV_ORGANISATION } from "../../local/dev-organisation.js";
import { type AlertAccess, DEMO_ENVIRONMENT } from "./alert-access.js";
import type { EnsuredDestination, EnsuredMonitor } from "./alert-setup.js";
import type { DemoSession } from "./scenario.js";

/** The port `npm run alerts:receiver` listens on unless PORT says otherwise (scripts/alert-receiver.ts). */
const RECEIVER_PORT = "8787";

export interface AlertDemoResult {
  readonly access: AlertAccess;
  readonly agent: string;
  readonly eventBridge: EnsuredDestination;
  readonly webhook: EnsuredDestination | undefined;
  readonly monitor: EnsuredMonitor;
  /** The monitor's status before this run's incident (an alert already raised is not raised again). */
  readonly statusBefore: string;
  readonly incident: readonly DemoSession[];
}

/** The receiver's command line for `secret`, with PORT when the webhook's URL is a loopback port other than 8787. */
export function receiverCommand(webhookUrl: string, secret: string): string {
  const url = new URL(webhookUrl);
  const port = url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port;
  const local = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  return `${local && port !== RECEIVER_PORT ? `PORT=${port} ` : ""}ATS_WEBHOOK_SECRET=${secret} npm run alerts:receiver`;
}

function webhookLines(result: AlertDemoResult, webhook: EnsuredDestination): string[] {
  const { destination, secret } = webhook;
  const url = destination.url ?? "";
  if (secret !== undefined) {
    return [
      "  Its signing secret, shown this once — start the receiver with it (in another terminal):",
      `    ${receiverCommand(url, secret)}`,
    ];
  }
  const base = result.access.target.baseUrl;
  return [
    `  Its signing secret was shown when "${destination.name}" was made. For a new one (the old one stops working):`,
    `    TOKEN=$(node -p 'require(${JSON.stringify(result.access.localJson)}).userToken')`,
    `    curl -s -X POST "${base}/api/alerts/destinations/${destination.id}/rotate-secret" -H "Authorization: Bearer $TOKEN" -H "X-Organization-Id: ${DEV_ORGANISATION}"`,
    `  then: ${receiverCommand(url, "<the secret>")}`,
  ];
}

/** Whole minutes since the first of `sessions` started (at least 1). */
function minutesSince(sessions: readonly DemoSession[]): number {
  const firstMs = Math.min(...sessions.map((session) => session.startedAtMs));
  return Math.max(1, Math.ceil((Date.now() - firstMs) / 60_000));
}

export function alertReport(result: AlertDemoResult): string[] {
  const { monitor } = result.monitor;
  const failed = result.incident.filter((session) => session.outcome.status === "failed");
  const example = failed[0]?.outcome.status === "failed" ? failed[0].outcome.failureReason : undefined;
  const destinations = [
    `"${result.eventBridge.destination.name}" (EventBridge, ${result.eventBridge.change})`,
    ...(result.webhook === undefined
      ? []
      : [`"${result.webhook.destination.name}" → ${result.webhook.destination.url} (${result.webhook.change})`]),
  ];
  const lines = [
    `Alert demo (organisation ${DEV_ORGANISATION}, environment ${DEMO_ENVIRONMENT})`,
    `  Monitor       "${monitor.name}" ${monitor.id} (${result.monitor.change}): failure rate of ${result.agent} above ` +
      `${monitor.alertThreshold} % over ${monitor.windowMinutes} minutes, from ${monitor.minSessions} sessions on (warning at ${monitor.warningThreshold ?? "–"} %)`,
    `  Destinations  ${destinations.join(" · ")}`,
    `  Incident      ${result.incident.length} runs of ${result.agent} in the last ${minutesSince(result.incident)} minutes, ` +
      `${failed.length} failed${example === undefined ? "" : `, e.g. "${example}"`}`,
  ];
  if (result.webhook !== undefined) lines.push(...webhookLines(result, result.webhook));
  const base = result.access.target.baseUrl;
  lines.push(
    "",
    "What happens next",
    result.statusBefore === "alert"
      ? `  The monitor is in alert already (an earlier incident): it stays there, with no new notification (renotify off); what it sent when it fired is in these places:`
      : `  The monitor fires at its next evaluation — \`npm start\` evaluates every minute, so within about a minute.`,
    `  Console       ${base}/alerts?monitor=${monitor.id} (sign in as dev@localhost): its state and history`,
    `  EventBridge   an "ats.monitor" line appended to ${result.access.notificationsFile}`,
    `                tail -f ${result.access.notificationsFile} | grep ats.monitor`,
    result.webhook === undefined
      ? "  Webhook       none: set ATS_WEBHOOK_URL=http://127.0.0.1:8787/ and run this again for a signed one to `npm run alerts:receiver`"
      : `  Webhook       the receiver prints "monitor.state_changed: ${monitor.name} ok → alert, …" ` +
          "(started later? a failed delivery is retried after 30 s, 2 and 10 minutes)",
    `  It recovers (alert → ok, notified) once its ${monitor.windowMinutes}-minute window has moved past the incident, ` +
      `${monitor.windowMinutes}–${monitor.windowMinutes + 5} minutes from now (the window starts at the 5 minutes holding its start).`,
  );
  return lines;
}
