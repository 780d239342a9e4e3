/**
 * The demo's Python agent (scripts/demo/python_agent.py, written with the Python client in python/src) as a child
 * process against the same service; what it recorded joins the demo's summary. Without `python3` the demo runs
 * as before and says the Python agent was skipped.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import type { EventType } from "../../sdk/src/index.js";
import type { DemoTarget } from "./connection.js";
import type { DemoSummary } from "./summary.js";

/** What python_agent.py prints. */
export interface PythonAgentResult {
  readonly agentName: string;
  readonly sessions: number;
  readonly failed: number;
  readonly events: number;
  readonly delivered: number;
  readonly eventsFailed: number;
  readonly dropped: number;
  readonly sessionsEnded: number;
  readonly sessionsFailed: number;
  readonly eventsByType: Readonly<Record<EventType, number>>;
  readonly toolErrors: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cost: number;
  readonly errors: readonly string[];
}

export type PythonAgentOutcome =
  | { readonly kind: "recorded"; readonly result: PythonAgentResult }
  | { readonly kind: "skipped"; readonly reason: string };

const SCRIPT = join(REPOSITORY_ROOT, "scripts", "demo", "python_agent.py");

/** Runs the Python agent against `target`; `skipped` when there is no `python3`. */
export function runPythonAgent(target: DemoTarget): Promise<PythonAgentOutcome> {
  const python = process.env.ATS_DEMO_PYTHON || "python3";
  return new Promise((resolve, reject) => {
    const child = spawn(python, [SCRIPT], {
      env: { ...process.env, ATS_BASE_URL: target.baseUrl, ATS_API_KEY: target.apiKey, PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") resolve({ kind: "skipped", reason: `${python} not found` });
      else reject(error);
    });
    child.on("close", (code) => {
      if (code !== 0) {
        reject(new Error(`The Python agent exited with ${code}: ${stderr.trim().split("\n").at(-1) ?? ""}`));
        return;
      }
      resolve({ kind: "recorded", result: JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as PythonAgentResult });
    });
  });
}

/** Whether everything the Python agent recorded was delivered. */
export function pythonDelivered(outcome: PythonAgentOutcome): boolean {
  if (outcome.kind === "skipped") return true;
  const result = outcome.result;
  return (
    result.eventsFailed === 0 &&
    result.dropped === 0 &&
    result.sessionsFailed === 0 &&
    result.delivered === result.events &&
    result.sessionsEnded === result.sessions
  );
}

/** The demo's summary with the Python agent's sessions, events, tokens and cost added. */
export function withPythonAgent(summary: DemoSummary, outcome: PythonAgentOutcome): DemoSummary {
  if (outcome.kind === "skipped") return summary;
  const python = outcome.result;
  const eventsByType = { ...summary.eventsByType };
  for (const type of Object.keys(eventsByType) as EventType[]) eventsByType[type] += python.eventsByType[type] ?? 0;
  const sessionsByAgent = new Map(summary.sessionsByAgent);
  sessionsByAgent.set(python.agentName, python.sessions);
  return {
    ...summary,
    sessions: summary.sessions + python.sessions,
    failed: summary.failed + python.failed,
    sessionsByAgent,
    events: summary.events + python.events,
    eventsByType,
    toolErrors: summary.toolErrors + python.toolErrors,
    cost: summary.cost + python.cost,
    promptTokens: summary.promptTokens + python.promptTokens,
    completionTokens: summary.completionTokens + python.completionTokens,
  };
}

/** The report's line about the Python agent. */
export function pythonReport(outcome: PythonAgentOutcome): string {
  if (outcome.kind === "skipped") {
    return `  Python    skipped (${outcome.reason}): the Python agent (scripts/demo/python_agent.py) records 3 more sessions when python3 is present`;
  }
  const python = outcome.result;
  return (
    `  Python    ${python.agentName}: ${python.sessions} sessions (${python.failed} failed), ${python.events} events through the ` +
    `Python client — ${python.delivered} delivered · ${python.eventsFailed} failed · ${python.dropped} dropped`
  );
}
