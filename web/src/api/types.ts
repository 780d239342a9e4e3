/** Response shapes of the API, as README "API reference" and functions/schemas/response-schemas.ts describe them. */

export type Role = "member" | "admin" | "owner";
export type Environment = "live" | "test";
export type Scope = "sessions:write" | "events:write" | "read" | "delete";
export const SCOPES: readonly Scope[] = ["sessions:write", "events:write", "read", "delete"];
export const DEFAULT_SCOPES: readonly Scope[] = ["sessions:write", "events:write", "read"];
export type SessionStatus = "active" | "completed" | "failed";
export const SESSION_STATUSES: readonly SessionStatus[] = ["active", "completed", "failed"];
export type EventType = "tool_call" | "llm_decision" | "state_change" | "error";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Me {
  userId: string;
  email: string;
  organisations: { orgId: string; role: Role }[];
  /** Invitations waiting for the user's answer: not organisations of theirs until accepted. */
  invitations: MyInvitation[];
}

/** An invitation as the invited person sees it (GET /api/me). */
export interface MyInvitation {
  orgId: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

/** A pending invitation as the organisation's owners see it (GET/POST /api/invitations). */
export interface Invitation {
  userId: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

export type ApiKeyStatus = "active" | "expiring" | "expired" | "revoked";

export interface ApiKey {
  id: string;
  name: string;
  hint: string;
  environment: Environment;
  scopes: Scope[];
  createdAt: string;
  createdBy: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  status: ApiKeyStatus;
}

/** 201 of POST /api/keys: the only response carrying the key itself. */
export interface CreatedApiKey {
  id: string;
  name: string;
  key: string;
  hint: string;
  environment: Environment;
  scopes: Scope[];
  createdAt: string;
  createdBy: string;
}

export interface RotatedApiKey extends CreatedApiKey {
  rotatedFrom: ApiKey;
}

export interface ApiKeyAuditRecord {
  id: string;
  keyId: string;
  action: "key.created" | "key.rotated" | "key.revoked";
  actor: string;
  actorId: string | null;
  at: string;
  details: Record<string, string | number>;
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  createdAt: string;
}

export interface Session {
  id: string;
  name: string;
  agentName: string;
  userId: string;
  environment: Environment;
  metadata: Record<string, unknown> | null;
  status: SessionStatus;
  success: boolean | null;
  failureReason: string | null;
  estimatedCost: number | null;
  durationMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
  customMetrics: Record<string, number> | null;
  eventCount: number;
  eventCost: number;
  toolCalls: Record<string, number>;
  toolErrors: Record<string, number>;
  createdAt: string;
  updatedAt: string;
  lastActivityAt: string;
  completedAt: string | null;
  stale: boolean;
}

export interface SessionEvent {
  id: string;
  sessionId: string;
  eventType: EventType;
  toolName?: string;
  toolInput?: Record<string, unknown>;
  toolOutput?: Record<string, unknown>;
  reasoning?: string;
  toolInputUrl?: string;
  toolInputBytes?: number;
  toolOutputUrl?: string;
  toolOutputBytes?: number;
  reasoningUrl?: string;
  reasoningBytes?: number;
  alternativesConsidered?: string[];
  confidence?: number;
  estimatedCost?: number;
  occurredAt?: string;
  createdAt: string;
}

export interface AgentSummary {
  agentName: string;
  sessionCount: number;
}

export interface StatsSummary {
  sessions: number;
  completed: number;
  failed: number;
  successRate: number | null;
  reportedCost: number;
  eventCost: number;
  events: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  durationMs: { p50: number | null; p95: number | null; mean: number | null };
}

export interface AgentStats {
  agentName: string;
  from: string;
  to: string;
  totals: StatsSummary;
  days: (StatsSummary & { day: string })[];
  topFailureReasons: { reason: string; count: number }[];
  topToolsByCalls: { toolName: string; calls: number }[];
  topToolsByErrors: { toolName: string; errors: number }[];
}
