/**
 * docs/otel.md against the code: its mapping table names every attribute and event the mapping reads
 * (the string literals of functions/domain/genai-trace-plan.ts and genai-messages.ts), its placeholders
 * and limits are the code's, and its curl example is a request the service accepts.
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

const ROOT = join(import.meta.dirname, "../..");
const DOC = readFileSync(join(ROOT, "docs/otel.md"), "utf8");
const MAPPING = DOC.slice(DOC.indexOf("\n## Mapping"), DOC.indexOf("\n## Example"));
const SOURCES = ["functions/domain/genai-trace-plan.ts", "functions/domain/genai-messages.ts"].map((path) =>
  readFileSync(join(ROOT, path), "utf8"),
);

/** The attribute and event names the mapping reads: its string literals in those namespaces. */
const NAMES = [
  ...new Set(
    SOURCES.flatMap((source) =>
      [...source.matchAll(/"((?:gen_ai|user|enduser|service|exception|error)\.[a-z0-9_.]+)"/g)].map(
        (match) => match[1] as string,
      ),
    ),
  ),
].sort();

describe("docs/otel.md", () => {
  it("has a mapping section", () => {
    expect(MAPPING.length).toBeGreaterThan(1000);
  });

  it("finds the attribute names in the code", () => {
    expect(NAMES).toEqual(
      expect.arrayContaining([
        "gen_ai.operation.name",
        "gen_ai.system",
        "gen_ai.usage.prompt_tokens",
        "gen_ai.user.message",
        "user.id",
        "enduser.id",
        "service.name",
        "exception.message",
        "error.type",
      ]),
    );
  });

  it.each(NAMES)("the mapping table names `%s`", (name) => {
    expect(MAPPING).toContain(`\`${name}\``);
  });

  it("names the operations, the event's own attributes and the placeholders", () => {
    for (const operation of [...INFERENCE_OPERATIONS, "invoke_agent", "create_agent", "execute_tool"]) {
      expect(MAPPING).toContain(`\`${operation}\``);
    }
    for (const name of ["exception", "message", "content", "otel:<spanId>:<n>"])
      expect(MAPPING).toContain(`\`${name}\``);
    expect(DOC).toContain(`\`${ANONYMOUS_USER}\``);
    expect(DOC).toContain(`\`${UNKNOWN_AGENT}\``);
    expect(DOC).toContain("OTELTRACE#<tenant>#<traceId>");
  });

  it("states the code's limits", () => {
    expect(DOC).toContain(`at most ${LIMITS.otlpSpans.toLocaleString("en-US")} (\`LIMITS.otlpSpans\`)`);
    expect(LIMITS.eventBodyBytes).toBe(5 * 1024 * 1024);
    expect(DOC).toContain("5 MiB once decompressed");
    expect(DOC).toContain(`deeper than ${MAX_DEPTH} levels`);
    expect(DOC).toContain(`nested more than ${ATTRIBUTE_DEPTH} levels`);
    expect(DOC).toContain(`${LIMITS.nameLength} UTF-16 characters and ${LIMITS.nameBytes} bytes`);
  });

  it("has a curl example the service reads without refusals", () => {
    const body = /<<'JSON'\n([\s\S]*?)\nJSON\n/.exec(DOC)?.[1];
    expect(body).toBeDefined();
    const { spans, refused } = readExportRequest(JSON.parse(body as string));
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
