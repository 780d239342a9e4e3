/**
 * Stored items as export rows (issue 35): each row is the read API's view of the item (sessionView, eventView,
 * scoreView, conversationView) in the columns of export-tables.ts, so a query over the export answers what the API
 * answers. Client JSON is kept as the stored JSON text (exact: `__proto__` keys, numbers past float range); a field
 * offloaded to the payload bucket is referenced by its key, not read.
 */
import { conversationView } from "../conversations/conversation-view.js";
import { eventView } from "../events/event-view.js";
import { scoreView } from "../scores/score-view.js";
import { sessionView } from "../sessions/session-view.js";
import { conversationFromItem, isShownSummary } from "../store/conversations/conversation-items.js";
import { eventFromItem } from "../store/events/event-store.js";
import { scoreEntity } from "../store/scores/score-item.js";
import { sessionFromItem } from "../store/sessions/session-store.js";
import type { Item } from "../store/table/entity.js";
import type { ExportRow } from "./parquet-table-file.js";

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const date = (value: string | null | undefined): Date | null => (typeof value === "string" ? new Date(value) : null);

export function sessionRow(item: Item): ExportRow {
  const view = sessionView(sessionFromItem(item));
  return {
    session_id: view.id,
    name: view.name,
    agent_name: view.agentName,
    user_id: view.userId,
    conversation_id: view.conversationId,
    status: view.status,
    success: view.success,
    failure_reason: view.failureReason,
    estimated_cost: view.estimatedCost,
    duration_ms: view.durationMs,
    prompt_tokens: view.promptTokens,
    completion_tokens: view.completionTokens,
    total_tokens: view.totalTokens,
    cache_read_tokens: view.cacheReadTokens,
    cache_write_tokens: view.cacheWriteTokens,
    reasoning_tokens: view.reasoningTokens,
    model_calls: view.modelCalls,
    unpriced_calls: view.unpricedCalls,
    event_count: view.eventCount,
    event_cost: view.eventCost,
    tool_calls_json: JSON.stringify(view.toolCalls),
    tool_errors_json: JSON.stringify(view.toolErrors),
    metadata_json: text(item.metadataJson),
    custom_metrics_json: text(item.customMetricsJson),
    created_at: date(view.createdAt),
    updated_at: date(view.updatedAt),
    last_activity_at: date(view.lastActivityAt),
    completed_at: date(view.completedAt),
  };
}

/** An event's row; `session` is its session's row (agent and user are the session's). */
export function eventRow(item: Item, session: ExportRow): ExportRow {
  const view = eventView(eventFromItem(item, true));
  const usage = view.usage;
  return {
    event_id: view.id,
    session_id: view.sessionId,
    agent_name: session.agent_name ?? null,
    user_id: session.user_id ?? null,
    event_type: view.eventType,
    tool_name: view.toolName ?? null,
    tool_input_json: text(item.toolInputJson),
    tool_input_ref: text(item.toolInputJsonRef),
    tool_output_json: text(item.toolOutputJson),
    tool_output_ref: text(item.toolOutputJsonRef),
    reasoning: text(item.reasoning),
    reasoning_ref: text(item.reasoningRef),
    alternatives_considered_json:
      view.alternativesConsidered === undefined ? null : JSON.stringify(view.alternativesConsidered),
    confidence: view.confidence ?? null,
    model: view.model,
    prompt_tokens: usage?.promptTokens ?? null,
    completion_tokens: usage?.completionTokens ?? null,
    total_tokens: usage?.totalTokens ?? null,
    cache_read_tokens: usage?.cacheReadTokens ?? null,
    cache_write_tokens: usage?.cacheWriteTokens ?? null,
    reasoning_tokens: usage?.reasoningTokens ?? null,
    estimated_cost: view.estimatedCost,
    cost_source: view.costSource,
    price_effective_from: view.priceEffectiveFrom,
    duration_ms: view.durationMs,
    occurred_at: date(view.occurredAt),
    created_at: date(view.createdAt),
  };
}

export function scoreRow(item: Item): ExportRow {
  const score = scoreEntity.fromItem(item);
  const view = scoreView(score);
  return {
    score_id: view.id,
    session_id: view.sessionId,
    event_id: view.eventId,
    conversation_id: view.conversationId,
    agent_name: score.agentName,
    name: view.name,
    value_kind: view.valueKind,
    numeric_value: typeof view.value === "number" ? view.value : null,
    boolean_value: typeof view.value === "boolean" ? view.value : null,
    categorical_value: typeof view.value === "string" ? view.value : null,
    comment: view.comment,
    source: view.source,
    author_kind: view.author.kind,
    author_id: view.author.id,
    created_at: date(view.createdAt),
    updated_at: date(view.updatedAt),
  };
}

/** A conversation's row, or undefined when no run of it is left (the read API does not show it either). */
export function conversationRow(item: Item): ExportRow | undefined {
  if (!isShownSummary(item)) return undefined;
  const view = conversationView(conversationFromItem(item));
  return {
    conversation_id: view.id,
    agent_name: view.agentName,
    user_id: view.userId,
    started_at: date(view.startedAt),
    last_run_at: date(view.lastRunAt),
    run_count: view.runCount,
  };
}
