/**
 * Which dialect reads a span, and the span in the normalised form the planner takes. The dialects, most
 * specific first: a span carrying several (the AI SDK's model-call spans also carry `gen_ai.*`; OpenLLMetry's
 * carry the GenAI conventions) is read by the most specific one alone — what it is, its usage, its content —
 * so nothing is counted twice; what it says of the run (agent, user, session) is taken from every dialect it
 * carries, the most specific first.
 */
import type { Dialect, GenAiSpan, SpanIdentity } from "../../domain/genai-span.js";
import type { JsonObject } from "../../domain/json.js";
import type { OtelSpan } from "../../domain/otel-span.js";
import { genAiSemconv } from "./genai-semconv.js";
import { langfuse } from "./langfuse.js";
import { mastra } from "./mastra.js";
import { openInference } from "./openinference.js";
import { openLlmetry } from "./openllmetry.js";
import { vercelAi } from "./vercel-ai.js";

/**
 * Langfuse first: `langfuse.observation.type` is what the application itself declared the span to be (its SDK
 * sets it on its own observations only; the other libraries' spans it exports never carry it). Mastra next:
 * `mastra.span.type` is set by Mastra's exporter on its own spans only, which also carry the GenAI conventions'
 * names — so the conventions must not read them first (they would take a loop's `model_generation` or a turn's
 * `agent_step` for an operation of their own and miss the run's user in `mastra.metadata.*`).
 */
export const DIALECTS: readonly Dialect[] = [langfuse, mastra, vercelAi, openInference, openLlmetry, genAiSemconv];

const IDENTITY_FIELDS = ["agentName", "runName", "agentId", "userId", "conversationId"] as const;

function mergedIdentity(span: OtelSpan, first: SpanIdentity): SpanIdentity {
  const identity: { -readonly [K in keyof SpanIdentity]: SpanIdentity[K] } = { ...first };
  let metadata: JsonObject | undefined = first.metadata;
  for (const dialect of DIALECTS) {
    const other = dialect.identity(span);
    for (const field of IDENTITY_FIELDS) identity[field] ??= other[field];
    if (other.metadata !== undefined) metadata = { ...other.metadata, ...metadata };
  }
  return { ...identity, metadata };
}

/** The span as the planner reads it. */
export function normaliseSpan(span: OtelSpan): GenAiSpan {
  const dialect = DIALECTS.find((candidate) => candidate.recognises(span)) ?? genAiSemconv;
  const facts = dialect.read(span);
  return { ...facts, ...mergedIdentity(span, facts), span, dialect: dialect.name };
}
