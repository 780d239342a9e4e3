/** What the demo prints: the recorded mix, the client's delivery counters, and where to look. */
import type { TrackerStats } from "../../sdk/src/index.js";
import type { DemoTarget } from "./connection.js";
import { DEMO_WINDOW_DAYS, type DemoSession } from "./scenario.js";
import type { DemoSummary } from "./summary.js";

const count = new Intl.NumberFormat("en-US");
const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The one line of `--quiet`, and the first line of the full report. */
export function headline(summary: DemoSummary, target: DemoTarget, elapsedMs: number): string {
  return (
    `Recorded ${summary.sessions} sessions (${summary.failed} failed) with ${count.format(summary.events)} events ` +
    `in ${seconds(elapsedMs)} → ${target.baseUrl}`
  );
}

export function mixReport(summary: DemoSummary, seed: string): string[] {
  const agents = [...summary.sessionsByAgent].map(([name, n]) => `${name} ${n}`).join(" · ");
  const types = Object.entries(summary.eventsByType)
    .map(([type, n]) => `${type} ${count.format(n)}`)
    .join(" · ");
  const totalTokens = summary.promptTokens + summary.completionTokens;
  const example = summary.failureReasons[0];
  return [
    `  Sessions  ${agents} (${summary.users} users, seed "${seed}")`,
    `  Started   ${day(summary.firstStartMs)} → ${day(summary.lastStartMs)} (UTC)`,
    `  Events    ${types} (${summary.toolErrors} tool errors)`,
    `  Failed    ${summary.failed} runs${example === undefined ? "" : `, e.g. "${example}"`}`,
    `  Cost      $${summary.cost.toFixed(4)} estimated`,
    `  Tokens    ${count.format(totalTokens)} (prompt ${count.format(summary.promptTokens)} · completion ${count.format(summary.completionTokens)})`,
  ];
}

export function deliveryReport(stats: TrackerStats): string[] {
  const ratio = stats.bytesSent > 0 ? stats.bytesBeforeCompression / stats.bytesSent : 1;
  return [
    "Delivery (ats.stats())",
    `  Events    ${count.format(stats.eventsDelivered)} delivered · ${stats.eventsFailed} failed · ${stats.eventsDropped} dropped`,
    `  Sessions  ${stats.sessionsCreated} created · ${stats.sessionsEnded} ended · ${stats.sessionsFailed} failed`,
    `  Requests  ${stats.requests} (${stats.retries} retries)`,
    `  Wire      ${kib(stats.bytesSent)} sent with gzip, ${kib(stats.bytesBeforeCompression)} without (${ratio.toFixed(1)}× smaller)`,
  ];
}

/** Ready-to-paste curl commands for the read API and the stats, about sessions this demo recorded. */
export function whereToLook(
  sessions: readonly DemoSession[],
  ids: readonly string[],
  target: DemoTarget,
  nowMs: number,
): string[] {
  const url = target.baseUrl;
  const auth = '-H "Authorization: Bearer $KEY"';
  const busiest = (pick: (session: DemoSession) => string): string => {
    const tally = new Map<string, number>();
    for (const session of sessions) tally.set(pick(session), (tally.get(pick(session)) ?? 0) + 1);
    return [...tally].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
  };
  const agent = busiest((session) => session.agentName);
  const user = busiest((session) => session.userId);
  const failedIndex = sessions.findIndex((session) => session.outcome.status === "failed");
  const failedId = ids[failedIndex];
  const from = day(nowMs - DEMO_WINDOW_DAYS * 24 * 60 * 60 * 1000);
  const to = day(nowMs);
  const lines = [
    "Where to look",
    `  ${target.keyCommand}`,
    `  curl -s "${url}/api/sdk/sessions?agentName=${agent}&limit=20" ${auth}`,
    `  curl -s "${url}/api/sdk/sessions?status=failed" ${auth}`,
  ];
  if (failedId !== undefined) {
    lines.push(`  curl -s "${url}/api/sdk/sessions/${failedId}/events" ${auth}    # a failed run, step by step`);
  }
  lines.push(
    `  curl -s "${url}/api/sdk/agents" ${auth}`,
    `  curl -s "${url}/api/sdk/agents/${agent}/stats?from=${from}&to=${to}" ${auth}`,
    `  curl -s "${url}/api/sdk/users/${user}/stats?from=${from}&to=${to}" ${auth}`,
  );
  return lines;
}
