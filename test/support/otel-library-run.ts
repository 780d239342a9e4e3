/**
 * The tests of real OpenTelemetry instrumentations (test/integration/otel-*.test.ts) drive one scripted agent
 * run — two model calls against the fake chat server (test/support/fake-chat-server.ts), one tool call, a
 * user — export it with the standard OTLP/HTTP exporters, and read it back here: one session, ended, under
 * the run's agent and user, with the model calls' exact tokens, one `llm_decision` per model call (model,
 * input and output messages) and the `tool_call` (name, input, output).
 */
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { expect } from "vitest";
import { ANONYMOUS_USER } from "../../functions/domain/genai-trace-plan.js";
import { modelPriceFile, type PriceRow, priceRows } from "../../functions/pricing/price-table.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { CACHED_TOKENS, CHAT_MODEL, FINAL_ANSWER, FIRST_USAGE, SECOND_USAGE, TOOL_NAME } from "./fake-chat-server.js";
import { call, readAllEvents, settleCounts, type TestKey } from "./fixtures.js";
import { expectExactDerivedData, settledGet } from "./stream-recount.js";

type Item = Record<string, unknown>;

/** The standard OTLP/HTTP protobuf trace exporter, pointed at the local API with `key`. */
export function tracesExporter(api: LocalApi, key: string): OTLPTraceExporter {
  return new OTLPTraceExporter({
    url: `${api.url}/api/otel/v1/traces`,
    headers: { authorization: `Bearer ${key}` },
    keepAlive: false,
  });
}

/** The sessions of the key's tenant, newest first (the reads settle the stream consumer). */
export async function sessionsOf(api: LocalApi, key: string): Promise<Item[]> {
  const response = await call(api, "GET", "/api/sdk/sessions?limit=100", { key });
  expect(response.status, response.text).toBe(200);
  return response.body.items as Item[];
}

export interface WholeRun {
  readonly agentName: string;
  readonly userId: string;
  /** The run happened between these (Unix ms). */
  readonly from: number;
  readonly to: number;
  /** Cache-read tokens the provider reported, when the library passes them on. */
  readonly cacheReadTokens?: number;
  /** The conversation id the run carried, when the library passes it on. */
  readonly conversationId?: string;
}

const text = (value: unknown) => JSON.stringify(value ?? null);

/**
 * Asserts the key's tenant holds the scripted run whole (see the module comment); resolves with the session
 * and its events.
 */
export async function expectWholeRun(api: LocalApi, key: string, run: WholeRun) {
  const sessions = await sessionsOf(api, key);
  expect(
    sessions.map((session) => `${String(session.agentName)} / ${String(session.userId)}`),
    "one session, under the run's agent and user",
  ).toEqual([`${run.agentName} / ${run.userId}`]);
  const session = sessions[0] as Item;
  expect(session).toMatchObject({
    status: "completed",
    success: true,
    promptTokens: FIRST_USAGE.prompt + SECOND_USAGE.prompt,
    completionTokens: FIRST_USAGE.completion + SECOND_USAGE.completion,
    totalTokens: FIRST_USAGE.prompt + FIRST_USAGE.completion + SECOND_USAGE.prompt + SECOND_USAGE.completion,
  });
  // Times: the run's own, in order (whole milliseconds: OTLP nanoseconds are truncated).
  const startedAt = Date.parse(String(session.createdAt));
  const completedAt = Date.parse(String(session.completedAt));
  expect(startedAt).toBeGreaterThanOrEqual(run.from - 1);
  expect(completedAt).toBeGreaterThanOrEqual(startedAt);
  expect(completedAt).toBeLessThanOrEqual(run.to + 1);
  expect(session.durationMs).toBe(completedAt - startedAt);
  if (run.cacheReadTokens !== undefined) {
    expect(session.customMetrics).toMatchObject({ cacheReadTokens: run.cacheReadTokens });
  }
  if (run.conversationId !== undefined) {
    expect(session.metadata).toMatchObject({ "gen_ai.conversation.id": run.conversationId });
  }
  expect(text(session.metadata)).not.toContain("otel.awaiting_root");

  const { events } = await readAllEvents(api, key, String(session.id));
  const decisions = events.filter((event) => event.eventType === "llm_decision");
  const tools = events.filter((event) => event.eventType === "tool_call");
  expect(
    events.map((event) => event.eventType).filter((type) => type !== "state_change"),
    "one llm_decision per model call, one tool_call",
  ).toEqual(expect.arrayContaining(["llm_decision", "llm_decision", "tool_call"]));
  expect(decisions).toHaveLength(2);
  expect(tools).toHaveLength(1);
  expect(events.filter((event) => event.eventType === "error")).toEqual([]);
  const [first, second] = [...decisions].sort((a, b) => String(a.occurredAt).localeCompare(String(b.occurredAt)));
  for (const decision of [first, second] as Item[]) {
    const input = decision.toolInput as Item;
    const output = decision.toolOutput as Item;
    expect(text(input.model ?? output.model), "the model").toContain(CHAT_MODEL);
    expect(Array.isArray(input.messages) && input.messages.length > 0, `input messages: ${text(input)}`).toBe(true);
    expect(output.messages, `output messages: ${text(output)}`).toBeDefined();
  }
  expect((first as Item).toolOutput).toMatchObject({
    promptTokens: FIRST_USAGE.prompt,
    completionTokens: FIRST_USAGE.completion,
  });
  expect(text((first as Item).toolOutput), "the first answer asks for the tool").toContain(TOOL_NAME);
  expect((second as Item).toolOutput).toMatchObject({
    promptTokens: SECOND_USAGE.prompt,
    completionTokens: SECOND_USAGE.completion,
  });
  expect(text((second as Item).toolInput), "the second call is given the tool's result").toContain("sunny");
  expectPricedFromTable(first as Item, FIRST_USAGE, run);
  expectPricedFromTable(second as Item, SECOND_USAGE, run);
  expect((second as Item).reasoning).toContain(FINAL_ANSWER);
  const tool = tools[0] as Item;
  expect(tool.toolName).toBe(TOOL_NAME);
  expect(text(tool.toolInput), "the tool's input").toContain("Oslo");
  expect(text(tool.toolOutput), "the tool's output").toContain("sunny");
  // Each model call and the tool call keep their span's duration: whole milliseconds from their start, within the run.
  for (const timed of [first, second, tool] as Item[]) {
    const start = Date.parse(String(timed.occurredAt));
    expect(Number.isInteger(timed.durationMs), `durationMs of ${String(timed.eventType)}`).toBe(true);
    expect(start).toBeGreaterThanOrEqual(startedAt);
    expect(start + Number(timed.durationMs)).toBeLessThanOrEqual(completedAt + 1);
  }
  return { session, events };
}

/** The price table's row of `model` in force on `day` (the newest whose effectiveFrom is not after it). */
export function tableRowInForce(model: string, day: string): PriceRow {
  const row = priceRows(modelPriceFile())
    .filter((each) => each.model === model && each.effectiveFrom <= day)
    .sort((a, b) => (a.effectiveFrom < b.effectiveFrom ? 1 : -1))[0];
  if (row === undefined) throw new Error(`The price table has no row of ${model} in force on ${day}`);
  return row;
}

/**
 * A model call's event carries the model it was answered by and its usage (ats's convention), and is priced at
 * ingest from the table's row: estimatedCost = the row's rates × the usage, costSource `table`.
 */
export function expectPricedFromTable(
  decision: Item,
  tokens: { readonly prompt: number; readonly completion: number },
  run: WholeRun,
): void {
  expect(decision.model, "the model the call was answered by").toBe(CHAT_MODEL);
  expect(decision.usage, "the call's usage").toMatchObject({
    promptTokens: tokens.prompt,
    completionTokens: tokens.completion,
    totalTokens: tokens.prompt + tokens.completion,
    ...(run.cacheReadTokens === undefined ? {} : { cacheReadTokens: CACHED_TOKENS }),
  });
  // The cache reads the library passed on (the fake server reports CACHED_TOKENS of every prompt), if any.
  const cacheRead = (decision.usage as { cacheReadTokens?: number }).cacheReadTokens ?? 0;
  expect([0, CACHED_TOKENS]).toContain(cacheRead);
  const day = String(decision.occurredAt).slice(0, 10);
  const row = tableRowInForce(CHAT_MODEL, day);
  const expected =
    ((tokens.prompt - cacheRead) * row.input +
      cacheRead * (row.cacheRead ?? row.input) +
      tokens.completion * row.output) /
    1_000_000;
  expect(decision.costSource, "priced from the table").toBe("table");
  expect(decision.priceEffectiveFrom).toBe(row.effectiveFrom);
  expect(decision.estimatedCost as number).toBeCloseTo(expected, 12);
}

/**
 * Exports a recorded run as a long run's batch processor does: the children first, in two exports (each
 * counted by the stream consumer before the next, so the session is counted under whatever agent and user
 * its first spans name), the root last.
 */
export async function exportChildrenFirst(api: LocalApi, key: string, spans: readonly ReadableSpan[]): Promise<void> {
  const exporter = tracesExporter(api, key);
  const children = spans.filter((span) => span.parentSpanContext !== undefined);
  const roots = spans.filter((span) => span.parentSpanContext === undefined);
  expect(roots).toHaveLength(1);
  const half = Math.ceil(children.length / 2);
  for (const batch of [children.slice(0, half), children.slice(half), roots]) {
    const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
      exporter.export([...batch], resolve),
    );
    expect(result.error, String(result.error)).toBeUndefined();
    expect(result.code).toBe(0);
    await settleCounts();
  }
  await exporter.shutdown();
}

/**
 * Asserts every counter, rollup and agent summary of the tenant's sessions equals a brute-force recount of
 * the stored items — those of the stand-in agent (`service.name`) and user (`anonymous`) a session started
 * from its children was counted under too (all withdrawn: they have no session left).
 */
export async function expectCountedExactly(api: LocalApi, owner: TestKey, standInAgent: string): Promise<void> {
  const sessions = await sessionsOf(api, owner.key);
  await expectExactDerivedData({
    reader: { client: documentClient, tableName },
    orgId: owner.orgId,
    sessionIds: sessions.map((session) => String(session.id)),
    get: settledGet(api, owner),
    agentNames: [standInAgent],
    userIds: [ANONYMOUS_USER],
  });
}
