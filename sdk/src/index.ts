/**
 * `@ats/client`: record agent runs in the Agent Tracking Service.
 *
 * ```ts
 * const ats = new AgentTracker({ apiKey: process.env.ATS_API_KEY, baseUrl: process.env.ATS_BASE_URL });
 * await ats.trace({ name: "Refund request", agentName: "support-bot", userId: "customer-42" }, async (run) => {
 *   run.toolCall({ toolName: "search_docs", toolInput: { query: "refund policy" }, toolOutput: { hits: 3 } });
 * });
 * await ats.shutdown();
 * ```
 *
 * @packageDocumentation
 */
export { AgentTracker, currentRun, MAX_EVENT_BYTES, type TrackerStats } from "./agent-tracker.js";
export type { AgentTrackerOptions } from "./config.js";
export {
  AtsConfigurationError,
  AtsDeliveryError,
  AtsDroppedEventsError,
  AtsError,
  type AtsErrorCode,
  AtsUsageError,
} from "./errors.js";
export type {
  DecisionFields,
  EndFields,
  ErrorFields,
  EventType,
  LlmCallFields,
  SessionFields,
  StateChangeFields,
  ToolCallFields,
  TrackedEvent,
} from "./event-types.js";
export type { FeedbackToken, FeedbackTokenOptions } from "./feedback-token.js";
export type { JsonObject, JsonValue } from "./json-value.js";
export type { LlmUsage, ModelPrice, PriceTable, WrapOpenAIOptions } from "./openai/options.js";
export { wrapOpenAI } from "./openai/wrap-openai.js";
export { Run, type RunUsage } from "./run.js";
export type { ConversationScoreFields, ScoreFields, ScoreSource, ScoreValue } from "./score-types.js";
export type { EventUsage } from "./usage.js";
export { wrapTool } from "./wrap-tool.js";
