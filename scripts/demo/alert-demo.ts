/**
 * `npm run demo -- --alert`, after the usual demo: the demo's destinations (EventBridge, and a webhook to
 * ATS_WEBHOOK_URL when it is set) and the monitor "Demo: <agent> failing", found by name or created; then an incident
 * recorded through the SDK as the demo records its runs: 6 runs of that agent, 5 failed by its own errors.
 */
import type { AtsError } from "../../sdk/src/index.js";
import { DEMO_AGENTS, type DemoAgent } from "./agents.js";
import type { AlertAccess } from "./alert-access.js";
import { type AlertDemoResult, receiverCommand } from "./alert-report.js";
import { EVENTBRIDGE_DESTINATION, ensureDemoMonitor, ensureDestination, WEBHOOK_DESTINATION } from "./alert-setup.js";
import { DemoSetupError } from "./connection.js";
import { createDemoTracker, recordSession } from "./record.js";
import { type DemoSession, planIncident } from "./scenario.js";

/** The agent the demo's monitor watches. */
export const ALERT_AGENT: DemoAgent = DEMO_AGENTS[0] as DemoAgent;
export const INCIDENT_RUNS = 6;
export const INCIDENT_FAILURES = 5;

export async function runAlertDemo(
  access: AlertAccess,
  options: { readonly seed: string; readonly webhookUrl: string | undefined },
): Promise<AlertDemoResult> {
  const eventBridge = await ensureDestination(access, EVENTBRIDGE_DESTINATION, "eventbridge");
  const webhook =
    options.webhookUrl === undefined
      ? undefined
      : await ensureDestination(access, WEBHOOK_DESTINATION, "webhook", options.webhookUrl);
  const destinationIds = [eventBridge.destination.id, ...(webhook === undefined ? [] : [webhook.destination.id])];
  try {
    const monitor = await ensureDemoMonitor(access, ALERT_AGENT.name, destinationIds);
    const incident = await recordIncident(access, options.seed);
    return {
      access,
      agent: ALERT_AGENT.name,
      eventBridge,
      webhook,
      monitor,
      statusBefore: monitor.monitor.state.status,
      incident,
    };
  } catch (error) {
    // A webhook made by this run shows its secret only now: not lost with the run.
    if (webhook?.secret === undefined) throw error;
    throw new DemoSetupError(
      `${error instanceof Error ? error.message : String(error)}\n"${webhook.destination.name}" was made all the same; its secret, shown this once: ` +
        receiverCommand(webhook.destination.url ?? "", webhook.secret),
    );
  }
}

/** The incident's runs, recorded through the SDK as the demo records its runs. */
async function recordIncident(access: AlertAccess, seed: string): Promise<DemoSession[]> {
  const incident = planIncident({
    agent: ALERT_AGENT,
    runs: INCIDENT_RUNS,
    failing: INCIDENT_FAILURES,
    seed,
    nowMs: Date.now(),
  });
  const errors: AtsError[] = [];
  const ats = createDemoTracker(access.target, errors);
  for (const session of incident) await recordSession(ats, session);
  const stats = await ats.shutdown({ timeoutMs: 30_000 });
  if (stats.sessionsEnded !== incident.length || stats.eventsFailed > 0 || stats.eventsDropped > 0) {
    const first = errors[0];
    throw new DemoSetupError(
      `The incident was not recorded whole: ${stats.sessionsEnded} of ${incident.length} runs ended, ` +
        `${stats.eventsFailed} events failed, ${stats.eventsDropped} dropped${first === undefined ? "" : ` (${first.code}: ${first.message})`}`,
    );
  }
  return incident;
}
