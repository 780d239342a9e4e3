/**
 * docs/otel.md against the code: each dialect's table names every attribute its module reads (the module's
 * string literals that name attributes), the planner's and the log records' tables theirs, every table row has
 * its check in test/unit/genai-dialect-rows.ts and every check its row, the placeholders and limits are the
 * code's, and the curl example is a request the service accepts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ANONYMOUS_USER, planTraces, UNKNOWN_AGENT } from "../../functions/domain/genai-trace-plan.js";
import { LIMITS } from "../../functions/domain/limits.js";
import { INFERENCE_OPERATIONS } from "../../functions/otel/dialects/genai-semconv.js";
import { normaliseSpan } from "../../functions/otel/dialects/normalise.js";
import { MAX_DEPTH } from "../../functions/otel/otlp-protobuf.js";
import { ATTRIBUTE_DEPTH, readExportRequest } from "../../functions/otel/otlp-spans.js";
import { DIALECT_ROWS } from "./genai-dialect-rows.js";

const ROOT = join(import.meta.dirname, "../..");
const DOC = readFileSync(join(ROOT, "docs/otel.md"), "utf8");

/** The text of a section of the document: from its heading to the next heading of its level or above. */
function section(heading: string): string {
  const start = DOC.indexOf(`\n${heading}\n`);
  expect(start, `a section "${heading}"`).toBeGreaterThan(0);
  const level = heading.split(" ")[0] as string;
  const rest = DOC.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return next < 0 ? rest : rest.slice(0, next);
}

/** The first cells of a section's table rows (the header row left out). */
function rowsOf(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| ---"))
    .slice(1)
    .map((line) => (line.slice(2).split(" | ")[0] as string).trim());
}

/** The attribute names a module reads: its string literals of dotted lower-case words (prefixes without their dot). */
function attributeNames(path: string): string[] {
  const source = readFileSync(join(ROOT, path), "utf8");
  return [
    ...new Set(
      [...source.matchAll(/"([a-z][a-z0-9_]*(?:\.[a-zA-Z0-9_]+)+)\.?"/g)]
        .map((match) => match[1] as string)
        .filter((name) => !name.endsWith(".js") && !name.endsWith(".ts")),
    ),
  ].sort();
}

const DIALECTS = [
  { heading: "### GenAI semantic conventions", module: "functions/otel/dialects/genai-semconv.ts" },
  { heading: "### OpenInference", module: "functions/otel/dialects/openinference.ts" },
  { heading: "### OpenLLMetry / Traceloop", module: "functions/otel/dialects/openllmetry.ts" },
  { heading: "### Vercel AI SDK", module: "functions/otel/dialects/vercel-ai.ts" },
  { heading: "### Langfuse", module: "functions/otel/dialects/langfuse.ts" },
  { heading: "### Mastra", module: "functions/otel/dialects/mastra.ts" },
  { heading: "### GenAI event log records", module: "functions/domain/genai-log-events.ts" },
] as const;

/** The JSON of the curl example's here-document, as written (with its shell expansions). */
function curlBody(): string {
  const body = /<<JSON\n([\s\S]*?)\nJSON\n/.exec(DOC)?.[1];
  expect(body, "a here-document <<JSON … JSON").toBeDefined();
  return body as string;
}

/** The here-document as the shell expands it: `$trace`, `${now}` and `$((now - n))`. */
function expandShell(body: string, now: number): string {
  return body
    .replaceAll("$trace", "4bf92f3577b34da6a3ce929d0e0e4736")
    .replace(/\$\{now\}/g, String(now))
    .replace(/\$\(\(now - (\d+)\)\)/g, (_match, seconds: string) => String(now - Number(seconds)));
}

describe("docs/otel.md", () => {
  describe.each(DIALECTS)("$heading", ({ heading, module }) => {
    const text = section(heading);

    it.each(attributeNames(module))("names `%s`", (name) => {
      expect(text).toContain(`\`${name}`);
    });

    it("has a check of every row, and a row for every check (test/unit/genai-dialect-rows.ts)", () => {
      const checks = Object.keys(DIALECT_ROWS[heading.slice(4)] ?? {});
      expect(checks.length).toBeGreaterThan(5);
      expect(rowsOf(text)).toEqual(checks);
    });
  });

  it("the GenAI conventions' table names what genai-messages.ts reads; the planner's tables what it reads", () => {
    const semconv = section("### GenAI semantic conventions");
    for (const name of attributeNames("functions/domain/genai-messages.ts")) expect(semconv).toContain(`\`${name}\``);
    const planner = section("## From spans to the session and events");
    const names = attributeNames("functions/domain/genai-trace-plan.ts");
    expect(names).toEqual(expect.arrayContaining(["exception.message", "error.type", "service.name", "otel.trace_id"]));
    for (const name of names) expect(planner, name).toContain(name);
  });

  it("names the operations, the claims and the placeholders", () => {
    const semconv = section("### GenAI semantic conventions");
    for (const operation of [...INFERENCE_OPERATIONS, "invoke_agent", "create_agent", "execute_tool"]) {
      expect(semconv).toContain(`\`${operation}\``);
    }
    expect(DOC).toContain("`otel:<spanId>:<n>`");
    expect(DOC).toContain(`\`${ANONYMOUS_USER}\``);
    expect(DOC).toContain(`\`${UNKNOWN_AGENT}\``);
    expect(DOC).toContain("OTELTRACE#<tenant>#<traceId>");
    expect(DOC).toContain("OTELLOG#<tenant>#<traceId>#<spanId>");
    expect(DOC).toContain("`AGENT_CLAIM`");
    expect(DOC).toContain("`USER_CLAIM`");
  });

  it("states the code's limits", () => {
    expect(DOC).toContain(`at most ${LIMITS.otlpSpans.toLocaleString("en-US")} (\`LIMITS.otlpSpans\`)`);
    expect(DOC).toContain(`at most ${LIMITS.otlpTraces} are recorded (\`LIMITS.otlpTraces\`)`);
    expect(DOC).toContain(`at most ${LIMITS.otlpLogRecords.toLocaleString("en-US")} (\`LIMITS.otlpLogRecords\``);
    expect(DOC).toContain(`at most ${LIMITS.otlpLogRecordsPerSpan} (\`LIMITS.otlpLogRecordsPerSpan\`)`);
    expect(DOC).toContain(
      `at most ${LIMITS.otlpLogBytesPerSpan / 1024 / 1024} MiB of messages in all (\`LIMITS.otlpLogBytesPerSpan\``,
    );
    expect(LIMITS.eventBodyBytes).toBe(5 * 1024 * 1024);
    expect(DOC).toContain("5 MiB once decompressed");
    expect(DOC).toContain(`deeper than ${MAX_DEPTH} levels`);
    expect(DOC).toContain(`nested more than ${ATTRIBUTE_DEPTH} levels`);
    expect(DOC).toContain(`${LIMITS.nameLength} UTF-16 characters and ${LIMITS.nameBytes} bytes`);
  });

  it("has a curl example whose times come from the clock (fixed times fall out of retention: every span refused)", () => {
    const body = curlBody();
    const times = [...body.matchAll(/"(?:start|end)TimeUnixNano": "([^"]*)"/g)].map((match) => match[1]);
    expect(times).toHaveLength(4);
    for (const time of times) expect(time).toMatch(/^(\$\(\(now - \d+\)\)|\$\{now\})000000000$/);
    expect(DOC).toContain("now=$(date +%s)");
  });

  it("has a curl example the service reads without refusals", () => {
    const { spans, refused } = readExportRequest(JSON.parse(expandShell(curlBody(), Math.floor(Date.now() / 1000))));
    expect(refused).toEqual([]);
    expect(spans).toHaveLength(2);
    const [plan] = planTraces(spans.map(normaliseSpan));
    expect(plan?.start).toMatchObject({ agentName: "travel-planner", provisionalName: false });
    expect(plan?.end?.status).toBe("completed");
    expect(plan?.events.map((planned) => planned.event.eventType)).toEqual(["llm_decision"]);
    expect(plan?.inference.find((call) => call.spanId === "53995c3f42cd8ad8")?.usage).toMatchObject({
      promptTokens: 412,
      completionTokens: 38,
    });
  });
});
