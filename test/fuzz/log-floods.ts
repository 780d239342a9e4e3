/**
 * Log-record floods for the HTTP fuzzer (http-fuzz.test.ts, "log-record floods"): a plan of
 * ./arbitraries.ts (`logFloodPlan`) made into the records of one span — each record's content names it
 * (`flood <export>.<place> xxx…`) — the bodies of its exports, and what the service must answer and keep,
 * by the rule docs/otel.md states: a span keeps records in export order while it holds at most
 * `LIMITS.otlpLogRecordsPerSpan` and `LIMITS.otlpLogBytesPerSpan` bytes of messages; once one of an export
 * is refused the export's later ones are too; a record it holds already is accepted again.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { LIMITS } from "../../functions/domain/limits.js";
import { BYTES_PER_SPAN_MESSAGE, RECORDS_PER_SPAN_MESSAGE } from "../../functions/domain/log-record-budget.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import type { LogFloodExport } from "./arbitraries.js";

/** The refusal of a record that is not a GenAI event (otlp-logs.ts). */
export const PLAIN_LINE_MESSAGE = "Only GenAI event log records (gen_ai.*.message, gen_ai.choice, …) are recorded";

/** A flood record as the test knows it: its content, and the bytes of the messages the service stores for it. */
export interface FloodRecord {
  readonly content: string;
  readonly bytes: number;
}

/** One export of a flood, ready to send (again, for a retry). */
export interface FloodExport {
  readonly records: readonly FloodRecord[];
  readonly plainLines: number;
  readonly body: string;
  readonly gzip: boolean;
}

function floodRecords(exportIndex: number, records: number, contentChars: number): FloodRecord[] {
  return Array.from({ length: records }, (_, place) => {
    const name = `flood ${exportIndex}.${place} `;
    const content = name + "x".repeat(Math.max(0, contentChars - name.length));
    return { content, bytes: Buffer.byteLength(JSON.stringify({ input: [{ role: "user", content }] }), "utf8") };
  });
}

/** The JSON ExportLogsServiceRequest of an export: its records on the span, plain lines spread among them. */
function floodBody(
  span: { traceId: string; spanId: string; baseMs: number },
  exportIndex: number,
  records: readonly FloodRecord[],
  plainLines: number,
): string {
  const nanos = (place: number) => `${BigInt(span.baseMs) * 1_000_000n + BigInt(exportIndex * 10_000 + place)}`;
  const logRecords: unknown[] = records.map((record, place) => ({
    timeUnixNano: nanos(place),
    traceId: span.traceId,
    spanId: span.spanId,
    eventName: "gen_ai.user.message",
    body: { kvlistValue: { values: [{ key: "content", value: { stringValue: record.content } }] } },
  }));
  for (let line = 0; line < plainLines; line++) {
    logRecords.splice(Math.floor(((line + 1) * logRecords.length) / (plainLines + 1)), 0, {
      timeUnixNano: nanos(9_000 + line),
      traceId: span.traceId,
      spanId: span.spanId,
      eventName: "gen_ai.other",
      body: { stringValue: "a plain log line" },
    });
  }
  return JSON.stringify({ resourceLogs: [{ resource: {}, scopeLogs: [{ logRecords }] }] });
}

/** The exports of a plan, in order (a retry is the earlier export itself). */
export function floodExports(
  span: { traceId: string; spanId: string; baseMs: number },
  plan: readonly LogFloodExport[],
): FloodExport[] {
  const exports: FloodExport[] = [];
  plan.forEach((step, index) => {
    if (step.kind === "retry") {
      const earlier = exports[Math.max(0, exports.length - step.back)];
      if (earlier !== undefined) exports.push(earlier);
      return;
    }
    const records = floodRecords(index, step.records, step.contentChars);
    exports.push({
      records,
      plainLines: step.plainLines,
      body: floodBody(span, index, records, step.plainLines),
      gzip: step.gzip,
    });
  });
  return exports;
}

/** What a span keeps, export after export, and what each export must be answered. */
export class FloodOracle {
  private readonly kept = new Set<string>();
  private bytes = 0;

  /** The contents the span holds. */
  get contents(): ReadonlySet<string> {
    return this.kept;
  }

  /** Takes an export; resolves with how many of its records are refused and the reasons. */
  take(flood: FloodExport): { readonly rejected: number; readonly reasons: readonly string[] } {
    const reasons = new Set<string>();
    let closed: string | undefined;
    let rejected = flood.plainLines;
    if (flood.plainLines > 0) reasons.add(PLAIN_LINE_MESSAGE);
    for (const record of flood.records) {
      if (this.kept.has(record.content)) continue;
      closed ??=
        this.kept.size + 1 > LIMITS.otlpLogRecordsPerSpan
          ? RECORDS_PER_SPAN_MESSAGE
          : this.bytes + record.bytes > LIMITS.otlpLogBytesPerSpan
            ? BYTES_PER_SPAN_MESSAGE
            : undefined;
      if (closed !== undefined) {
        rejected += 1;
        reasons.add(closed);
        continue;
      }
      this.kept.add(record.content);
      this.bytes += record.bytes;
    }
    return { rejected, reasons: [...reasons] };
  }
}

/** The answer's problems: `{}` when nothing is refused, else `partialSuccess` counting the refusals, naming why. */
export function floodAnswerProblems(
  answer: unknown,
  expected: { readonly rejected: number; readonly reasons: readonly string[] },
): string[] {
  if (expected.rejected === 0)
    return JSON.stringify(answer) === "{}" ? [] : [`flood: expected {}, got ${JSON.stringify(answer).slice(0, 300)}`];
  const partial = (answer as { partialSuccess?: { rejectedLogRecords?: unknown; errorMessage?: unknown } })
    ?.partialSuccess;
  const problems: string[] = [];
  if (partial?.rejectedLogRecords !== String(expected.rejected))
    problems.push(`flood: rejectedLogRecords ${String(partial?.rejectedLogRecords)}, expected ${expected.rejected}`);
  const message = typeof partial?.errorMessage === "string" ? partial.errorMessage : "";
  for (const reason of expected.reasons)
    if (!message.includes(reason)) problems.push(`flood: errorMessage "${message.slice(0, 300)}" misses "${reason}"`);
  return problems;
}

/** The contents of the records stored in a span's partition (read whole, consistently: a test may). */
export async function storedFloodContents(partition: string): Promise<Set<string>> {
  const contents = new Set<string>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        // The span's records, not its tally item.
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :logs)",
        ExpressionAttributeValues: { ":pk": partition, ":logs": "LOG#" },
        ProjectionExpression: "messagesJson",
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const messages = JSON.parse(String(item.messagesJson)) as { input?: { content?: unknown }[] };
      contents.add(String(messages.input?.[0]?.content));
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
  return contents;
}
