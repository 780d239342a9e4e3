/**
 * `npm run demo [-- --sessions N] [--seed S] [--quiet]`: three scripted agents
 * (no LLM) record a realistic mix of runs over the last 14 days through the
 * SDK into the running local stack (or ATS_BASE_URL / ATS_API_KEY), then print
 * what was recorded, the client's delivery counters and curl commands to look
 * at it. When `python3` is present, a Python agent (scripts/demo/python_agent.py, written with the Python client)
 * records three more sessions. Exit 0 only when every session and event was delivered.
 *
 * `--alert` (the local stack only) then makes the demo's monitor and destinations and records an incident that
 * fires it at the next evaluation (scripts/demo/alert-demo.ts, alert-setup.ts; docs/alerts.md "Try it locally").
 */
import { parseArgs } from "node:util";
import { runCli, UsageError } from "../../local/cli-program.js";
import type { AtsError } from "../../sdk/src/index.js";
import { type AlertAccess, checkAlertAccess, resolveAlertAccess } from "./alert-access.js";
import { runAlertDemo } from "./alert-demo.js";
import { alertReport } from "./alert-report.js";
import { checkService, resolveTarget } from "./connection.js";
import { pythonDelivered, pythonReport, runPythonAgent, withPythonAgent } from "./python-agent.js";
import { createDemoTracker, recordSession } from "./record.js";
import { deliveryReport, headline, mixReport, whereToLook } from "./report.js";
import { planDemo } from "./scenario.js";
import { summarize } from "./summary.js";

const USAGE =
  "Usage: npm run demo [-- --sessions N (1–5000, default 60)] [--seed S] [--quiet] [--alert]\n" +
  "  --alert  (local stack only) then a monitor on a demo agent and an incident that fires it;\n" +
  "           with ATS_WEBHOOK_URL set, also a signed webhook to it (npm run alerts:receiver)";
const MAX_SESSIONS = 5000;
/** How many SDK problems are printed when something was not delivered. */
const ERRORS_SHOWN = 5;

interface DemoOptions {
  readonly sessions: number;
  readonly seed: string;
  readonly quiet: boolean;
  readonly alert: boolean;
}

/** The options, or `undefined` for `--help`. */
function readOptions(argv: string[]): DemoOptions | undefined {
  let values: { sessions?: string; seed?: string; quiet?: boolean; alert?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        sessions: { type: "string" },
        seed: { type: "string" },
        quiet: { type: "boolean" },
        alert: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (values.help === true) return undefined;
  const sessions = Number(values.sessions ?? 60);
  if (!Number.isInteger(sessions) || sessions < 1 || sessions > MAX_SESSIONS) {
    throw new UsageError(`--sessions must be a whole number from 1 to ${MAX_SESSIONS}\n${USAGE}`);
  }
  return { sessions, seed: values.seed ?? "ats-demo", quiet: values.quiet ?? false, alert: values.alert ?? false };
}

async function demo(argv: string[]): Promise<void> {
  const options = readOptions(argv);
  if (options === undefined) {
    console.log(USAGE);
    return;
  }
  // --alert: the local stack's URL and key, and its dev user's token checked before anything is recorded.
  const alertAccess: AlertAccess | undefined = options.alert ? resolveAlertAccess() : undefined;
  const webhookUrl = process.env.ATS_WEBHOOK_URL?.trim() || undefined;
  if (alertAccess !== undefined && webhookUrl !== undefined && !URL.canParse(webhookUrl)) {
    throw new UsageError(`ATS_WEBHOOK_URL is not a URL: "${webhookUrl.slice(0, 200)}" (e.g. http://127.0.0.1:8787/)`);
  }
  const target = alertAccess?.target ?? resolveTarget();
  await checkService(target);
  if (alertAccess !== undefined) await checkAlertAccess(alertAccess);

  const errors: AtsError[] = [];
  // The whole demo is queued before the first batch leaves; the client keeps every event.
  const ats = createDemoTracker(target, errors);

  const startedMs = performance.now();
  const nowMs = Date.now();
  const sessions = planDemo({ sessions: options.sessions, seed: options.seed, nowMs });
  const ids: string[] = [];
  for (const session of sessions) ids.push(await recordSession(ats, session));
  const stats = await ats.shutdown({ timeoutMs: 60_000 });
  // The Python agent records its own runs through the Python client, against the same service.
  const python = await runPythonAgent(target);
  const elapsedMs = performance.now() - startedMs;

  const summary = summarize(sessions);
  const shown = withPythonAgent(summary, python);
  const delivered =
    pythonDelivered(python) &&
    stats.eventsFailed === 0 &&
    stats.eventsDropped === 0 &&
    stats.sessionsFailed === 0 &&
    stats.eventsDelivered === summary.events &&
    stats.sessionsEnded === summary.sessions;

  console.log(headline(shown, target, elapsedMs));
  if (!options.quiet) {
    console.log([...mixReport(shown, options.seed), "", ...deliveryReport(stats), pythonReport(python)].join("\n"));
    if (delivered) console.log(["", ...whereToLook(sessions, ids, target, nowMs)].join("\n"));
  }
  if (!delivered) {
    const lines = [
      `Not everything was delivered: ${summary.events - stats.eventsDelivered} of ${summary.events} events ` +
        `(${stats.eventsFailed} failed, ${stats.eventsDropped} dropped), ` +
        `${summary.sessions - stats.sessionsEnded} of ${summary.sessions} sessions not ended (${stats.sessionsFailed} failed to start)`,
      ...errors.slice(0, ERRORS_SHOWN).map((error) => `  ${error.code}: ${error.message}`),
    ];
    if (python.kind === "recorded" && !pythonDelivered(python)) {
      lines.push(
        `The Python agent did not deliver everything: ${pythonReport(python).trim()}`,
        ...python.result.errors.map((error) => `  ${error}`),
      );
    }
    if (errors.length > ERRORS_SHOWN) lines.push(`  … and ${errors.length - ERRORS_SHOWN} more`);
    console.error(lines.join("\n"));
    process.exitCode = 1;
    return;
  }
  if (alertAccess !== undefined) {
    const result = await runAlertDemo(alertAccess, { seed: options.seed, webhookUrl });
    console.log(["", ...alertReport(result)].join("\n"));
  }
}

await runCli(demo);
