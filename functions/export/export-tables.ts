/**
 * The exported tables (issue 35): their names, typed columns and partition keys, in one place. The Parquet
 * writer (export-parquet.ts), the Glue tables of the CDK stack (lib/constructs/export-catalog.ts), `npm run sql`
 * (DuckDB views) and docs/sql.md all read this module; a changed column is a new `EXPORT_SCHEMA_VERSION`.
 *
 * Rows mirror the read API's views (sessionView, eventView, scoreView, conversationView) in snake_case, so a
 * query over the export answers what the API answers. Client JSON (metadata, tool input and output, custom
 * metrics, tool counters) stays JSON text; a field offloaded to S3 is referenced by its payload-bucket key in
 * `<field>_ref`, never inlined.
 *
 * Partitions (Hive style, not columns of the files): `org`, `env`, `day`. `day` is the UTC start day of the
 * session a row belongs to (sessions, their events and their scores), or of the conversation (conversations
 * and a conversation's own scores): a run is filed with everything it holds, as the rollups count it.
 */

/** Bumped whenever a column is added, removed, renamed or retyped (docs/export.md, "Schema versions"). */
export const EXPORT_SCHEMA_VERSION = 1;

export type ExportColumnType = "string" | "bigint" | "double" | "boolean" | "timestamp";

export interface ExportColumn {
  readonly name: string;
  readonly type: ExportColumnType;
  /** False only for columns every row has. */
  readonly nullable: boolean;
  readonly description: string;
}

export const EXPORT_TABLE_NAMES = ["sessions", "events", "scores", "conversations"] as const;
export type ExportTableName = (typeof EXPORT_TABLE_NAMES)[number];

/** The Hive partition keys of every table, in path order (all strings). */
export const EXPORT_PARTITION_KEYS = ["org", "env", "day"] as const;

const required = (name: string, type: ExportColumnType, description: string): ExportColumn => ({
  name,
  type,
  nullable: false,
  description,
});
const optional = (name: string, type: ExportColumnType, description: string): ExportColumn => ({
  name,
  type,
  nullable: true,
  description,
});

const USAGE_COLUMNS = (whose: string): ExportColumn[] => [
  optional("prompt_tokens", "bigint", `${whose} prompt tokens (cached reads included)`),
  optional("completion_tokens", "bigint", `${whose} completion tokens (reasoning included)`),
  optional("total_tokens", "bigint", `${whose} total tokens`),
  optional("cache_read_tokens", "bigint", `${whose} prompt tokens read from a cache`),
  optional("cache_write_tokens", "bigint", `${whose} prompt tokens written to a cache`),
  optional("reasoning_tokens", "bigint", `${whose} reasoning tokens`),
];

export const EXPORT_TABLES: Readonly<Record<ExportTableName, readonly ExportColumn[]>> = {
  sessions: [
    required("session_id", "string", "the session's id"),
    required("name", "string", "the session's name"),
    required("agent_name", "string", "the agent that ran it"),
    required("user_id", "string", "the end user it ran for"),
    optional("conversation_id", "string", "the conversation it belongs to"),
    required("status", "string", "active, completed or failed"),
    optional("success", "boolean", "the client's verdict at the end"),
    optional("failure_reason", "string", "why it failed, as reported"),
    optional("estimated_cost", "double", "USD: the cost reported at the end, else its events' sum (as the read API)"),
    optional("duration_ms", "bigint", "reported duration in milliseconds"),
    ...USAGE_COLUMNS("the session's"),
    required("model_calls", "bigint", "model calls counted"),
    required("unpriced_calls", "bigint", "model calls that could not be priced"),
    required("event_count", "bigint", "events counted"),
    required("event_cost", "double", "USD: the sum of its events' costs"),
    required("tool_calls_json", "string", "JSON object: calls per tool name"),
    required("tool_errors_json", "string", "JSON object: failed calls per tool name"),
    optional("metadata_json", "string", "the client's metadata, JSON text"),
    optional("custom_metrics_json", "string", "the client's custom metrics, JSON text"),
    required("created_at", "timestamp", "when it started (UTC)"),
    required("updated_at", "timestamp", "last change (UTC)"),
    required("last_activity_at", "timestamp", "last event or change (UTC)"),
    optional("completed_at", "timestamp", "when it ended (UTC)"),
  ],
  events: [
    required("event_id", "string", "the event's id"),
    required("session_id", "string", "its session"),
    required("agent_name", "string", "its session's agent"),
    required("user_id", "string", "its session's end user"),
    required("event_type", "string", "tool_call, llm_decision, state_change or error"),
    optional("tool_name", "string", "the tool called"),
    optional("tool_input_json", "string", "the tool's input, JSON text (null when offloaded: see tool_input_ref)"),
    optional("tool_input_ref", "string", "payload-bucket key of an offloaded tool input"),
    optional("tool_output_json", "string", "the tool's output, JSON text (null when offloaded: see tool_output_ref)"),
    optional("tool_output_ref", "string", "payload-bucket key of an offloaded tool output"),
    optional("reasoning", "string", "the decision's reasoning (null when offloaded: see reasoning_ref)"),
    optional("reasoning_ref", "string", "payload-bucket key of offloaded reasoning"),
    optional("alternatives_considered_json", "string", "JSON array of strings"),
    optional("confidence", "double", "0 to 1"),
    optional("model", "string", "the model a model call was answered by"),
    ...USAGE_COLUMNS("the model call's"),
    optional("estimated_cost", "double", "USD"),
    optional("cost_source", "string", "reported, table, organisation or unpriced"),
    optional("price_effective_from", "string", "YYYY-MM-DD of the price applied"),
    optional("duration_ms", "bigint", "how long the step took, in milliseconds"),
    optional("occurred_at", "timestamp", "when the client says it happened (UTC)"),
    required("created_at", "timestamp", "when the service recorded it (UTC)"),
  ],
  scores: [
    required("score_id", "string", "the score's id"),
    optional("session_id", "string", "the session it judges (null for a conversation's score)"),
    optional("event_id", "string", "the event it judges, if one"),
    optional("conversation_id", "string", "the conversation it judges (null for a session's score)"),
    required("agent_name", "string", "the agent it is counted under"),
    required("name", "string", "the score's name"),
    required("value_kind", "string", "numeric, boolean or categorical"),
    optional("numeric_value", "double", "the value of a numeric score"),
    optional("boolean_value", "boolean", "the value of a boolean score"),
    optional("categorical_value", "string", "the label of a categorical score"),
    optional("comment", "string", "the author's comment"),
    required("source", "string", "api, sdk, console, end_user or evaluator"),
    required("author_kind", "string", "apiKey, user or feedbackToken"),
    required("author_id", "string", "the key, user or feedback token"),
    required("created_at", "timestamp", "first recorded (UTC)"),
    required("updated_at", "timestamp", "last replaced (UTC)"),
  ],
  conversations: [
    required("conversation_id", "string", "the conversation's id"),
    required("agent_name", "string", "its first run's agent"),
    required("user_id", "string", "its first run's end user"),
    required("started_at", "timestamp", "its first run's start (UTC)"),
    required("last_run_at", "timestamp", "its latest run's start (UTC)"),
    required("run_count", "bigint", "runs (sessions) it holds"),
  ],
};
