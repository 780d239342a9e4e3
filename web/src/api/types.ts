/**
 * Response shapes of the API, derived from the zod schemas the API's responses are tested against
 * (functions/schemas/response-schemas.ts): a field added to the API reaches these types without a copy.
 * Type-only imports: nothing of the service is bundled into the console.
 */
import type * as z from "zod";
import type {
  agentListResponse,
  agentModelsResponse,
  agentStatsResponse,
  apiKeyAuditResponse,
  apiKeyResponse,
  conversationDetailResponse,
  conversationResponse,
  createdApiKeyResponse,
  eventResponse,
  invitationResponse,
  memberResponse,
  meResponse,
  modelsResponse,
  rotatedApiKeyResponse,
  scoreConfigResponse,
  scoreResponse,
  sessionDetailResponse,
  sessionResponse,
} from "../../../functions/schemas/response-schemas";

export type Session = z.output<typeof sessionResponse>;
/** A conversation as listed (GET /api/sdk/conversations). */
export type Conversation = z.output<typeof conversationResponse>;
/** A conversation with a page of its runs (GET /api/sdk/conversations/{id}); `totals` on the first page only. */
export type ConversationPage = z.output<typeof conversationDetailResponse>;
export type ConversationTotals = NonNullable<ConversationPage["totals"]>;
export type SessionEvent = z.output<typeof eventResponse>;
/** GET /api/sdk/sessions/{id}: the session with its first scores. */
export type SessionDetail = z.output<typeof sessionDetailResponse>;
/** A verdict on a session or one of its events (issue 33). */
export type Score = z.output<typeof scoreResponse>;
export type ScoreValue = Score["value"];
export type ScoreValueKind = Score["valueKind"];
/** What an organisation says the values of a score name must be. */
export type ScoreConfig = z.output<typeof scoreConfigResponse>;
export type Me = z.output<typeof meResponse>;
export type ApiKey = z.output<typeof apiKeyResponse>;
/** 201 of POST /api/keys: the only response carrying the key itself. */
export type CreatedApiKey = z.output<typeof createdApiKeyResponse>;
export type RotatedApiKey = z.output<typeof rotatedApiKeyResponse>;
export type ApiKeyAuditRecord = z.output<typeof apiKeyAuditResponse>["items"][number];
export type Member = z.output<typeof memberResponse>;
/** A pending invitation as the organisation's owners see it (GET/POST /api/invitations). */
export type Invitation = z.output<typeof invitationResponse>;
/** An invitation as the invited person sees it (GET /api/me). */
export type MyInvitation = Me["invitations"][number];
export type AgentList = z.output<typeof agentListResponse>;
export type AgentSummary = AgentList["items"][number];
export type AgentStats = z.output<typeof agentStatsResponse>;
export type StatsSummary = AgentStats["totals"];
export type DayStats = AgentStats["days"][number];

export type Role = Me["organisations"][number]["role"];
export type Environment = Session["environment"];
export type Scope = ApiKey["scopes"][number];
export type SessionStatus = Session["status"];
export type EventType = SessionEvent["eventType"];
export type ApiKeyStatus = ApiKey["status"];

/** Every value of a union type, checked both ways: a value the API adds is a compile error until listed here. */
function allOf<T extends string>() {
  return <const A extends readonly T[]>(values: A & ([T] extends [A[number]] ? unknown : never)) => values;
}

export const SCOPES = allOf<Scope>()(["sessions:write", "events:write", "scores:write", "read", "delete"]);
export const DEFAULT_SCOPES: readonly Scope[] = ["sessions:write", "events:write", "scores:write", "read"];
export const SESSION_STATUSES = allOf<SessionStatus>()(["active", "completed", "failed"]);
export const ROLES = allOf<Role>()(["member", "admin", "owner"]);
export const ENVIRONMENTS = allOf<Environment>()(["live", "test"]);
export const SCORE_VALUE_KINDS = allOf<ScoreValueKind>()(["categorical", "numeric", "boolean"]);

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Rates in USD per million tokens (functions/pricing/price-table.ts Rates). */
export interface PriceRates {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
  tiers?: ({ above: number } & Partial<Omit<PriceRates, "tiers">>)[];
}

/** GET /api/prices items: the organisation's own price of a model from a day on. */
export interface OrganisationPrice extends PriceRates {
  model: string;
  effectiveFrom: string;
  updatedAt: string;
  updatedBy: string;
}

export interface OrganisationPriceList {
  items: OrganisationPrice[];
  limits: { pricesPerOrganisation: number; pricesPerModel: number };
}

/** GET /api/prices/audit items. */
export interface PriceAuditRecord {
  id: string;
  action: "price.set" | "price.deleted";
  model: string;
  effectiveFrom: string;
  actor: string;
  actorId: string | null;
  at: string;
  before: PriceRates | null;
  after: PriceRates | null;
}

/** GET /api/prices/table: the price table shipped with the service. */
export interface PriceTable {
  sources: Record<string, { title: string; url: string; commit?: string; asOf: string }>;
  items: (PriceRates & { model: string; provider: string; effectiveFrom: string; source: string })[];
}

/** GET /api/sdk/models: the organisation's model calls over a period, per model (the server's own schema). */
export type ModelsReport = z.output<typeof modelsResponse>;
/** GET /api/sdk/agents/{agentName}/models: one agent's model calls over a period, per model. */
export type AgentModelsReport = z.output<typeof agentModelsResponse>;
/** One model's line; `model` is null for the calls that named no model. */
export type ModelUsage = ModelsReport["models"][number];
