/**
 * The nine measured endpoints, each as a request generator usable both over
 * HTTP (autocannon) and in-process (an API Gateway event for the handler
 * module). A "lane" is one sequential stream of requests: one HTTP
 * connection, or the in-process loop. Writing lanes get their own session,
 * so concurrent requests never contend for one session item (an agent run
 * is one session; its events arrive in order).
 */
import { type RouteDefinition, type RouteId, routeById } from "../../functions/routes.js";

export interface PlannedRequest {
  readonly path: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface Operation {
  readonly routeId: RouteId;
  /** e.g. `POST /api/sdk/events`. */
  readonly label: string;
  readonly route: RouteDefinition;
  /** Which bench key the operation uses: the writing organisation's or the seeded one's. */
  readonly apiKey: "write" | "read";
  readonly expectStatus: number;
  /** Events stored per request (throughput in events/s). */
  readonly eventsPerRequest: number;
  readonly lane: (lane: number) => () => PlannedRequest;
  /** Failed items inside a 2xx body (batch results); also harvests created session ids. */
  readonly inspect?: (status: number, body: string) => number;
  /** How many more requests the operation can make (operations that use up a supply of sessions). */
  readonly remaining?: () => number;
}

export interface OperationContext {
  /** One active session per lane for single events, and one per lane for batches. */
  readonly eventSessions: readonly string[];
  readonly batchSessions: readonly string[];
  /** Sessions of the seeded organisation (with events), read round-robin. */
  readonly seededSessions: readonly string[];
  readonly seededAgent: string;
  /** Active sessions waiting to be completed by PATCH (filled by session creation). */
  readonly toComplete: string[];
}

export const BATCH_SIZE = 100;

/** A typical event: well under 1 KB stored, no payload offloaded. */
export function eventBody(sessionId: string): Record<string, unknown> {
  return {
    sessionId,
    eventType: "tool_call",
    toolName: "search_docs",
    toolInput: { query: "refund policy for order 4711", filters: { locale: "en-GB", maxResults: 5 } },
    toolOutput: { hits: 3, top: "refunds.md", score: 0.82 },
    estimatedCost: 0.0021,
  };
}

const COMPLETION = JSON.stringify({
  status: "completed",
  estimatedCost: 0.042,
  durationMs: 5400,
  promptTokens: 1200,
  completionTokens: 300,
  totalTokens: 1500,
});

export function urlOf(request: PlannedRequest): string {
  const query = request.query === undefined ? "" : new URLSearchParams(request.query).toString();
  return query === "" ? request.path : `${request.path}?${query}`;
}

function laneSession(sessions: readonly string[], lane: number): string {
  const session = sessions[lane % sessions.length];
  if (session === undefined) throw new Error("no session for lane");
  return session;
}

function define(routeId: RouteId, fields: Omit<Operation, "routeId" | "label" | "route">): Operation {
  const route = routeById(routeId);
  return { routeId, label: `${route.method} ${route.path.replace(/\{(\w+)\}/g, ":$1")}`, route, ...fields };
}

export function operations(context: OperationContext): Operation[] {
  let created = 0;
  let seededCursor = 0;
  let reportedBatchFailures = 0;
  const nextSeeded = () => {
    const id = context.seededSessions[seededCursor++ % context.seededSessions.length];
    if (id === undefined) throw new Error("no seeded sessions");
    return id;
  };
  return [
    define("CreateSession", {
      apiKey: "write",
      expectStatus: 201,
      eventsPerRequest: 0,
      lane: (lane) => () => {
        created += 1;
        return {
          path: "/api/sdk/sessions",
          body: JSON.stringify({ name: `bench run ${created}`, agentName: "bench-agent", userId: `user-${lane}` }),
        };
      },
      inspect: (status, body) => {
        if (status === 201) context.toComplete.push((JSON.parse(body) as { id: string }).id);
        return 0;
      },
    }),
    define("UpdateSession", {
      apiKey: "write",
      expectStatus: 200,
      eventsPerRequest: 0,
      lane: () => () => {
        const id = context.toComplete.shift();
        if (id === undefined) throw new Error("no active session left to complete");
        return { path: `/api/sdk/sessions/${id}`, pathParameters: { id }, body: COMPLETION };
      },
      remaining: () => context.toComplete.length,
    }),
    define("CreateEvent", {
      apiKey: "write",
      expectStatus: 201,
      eventsPerRequest: 1,
      lane: (lane) => {
        const body = JSON.stringify(eventBody(laneSession(context.eventSessions, lane)));
        return () => ({ path: "/api/sdk/events", body });
      },
    }),
    define("CreateEventBatch", {
      apiKey: "write",
      expectStatus: 200,
      eventsPerRequest: BATCH_SIZE,
      lane: (lane) => {
        const event = eventBody(laneSession(context.batchSessions, lane));
        const body = JSON.stringify({ events: Array.from({ length: BATCH_SIZE }, () => event) });
        return () => ({ path: "/api/sdk/events/batch", body });
      },
      inspect: (status, body) => {
        if (status !== 200) return 0;
        const { results } = JSON.parse(body) as { results: { status: number }[] };
        const stored = results.filter((result) => result.status === 201).length;
        if (stored !== BATCH_SIZE && reportedBatchFailures++ < 3)
          process.stderr.write(`  batch with failed items: ${body.slice(0, 300)}\n`);
        return BATCH_SIZE - stored;
      },
    }),
    define("CreateScore", {
      apiKey: "write",
      expectStatus: 201,
      eventsPerRequest: 0,
      // A new score each time (no client id) on the lane's session, as an evaluator or a user's feedback writes one.
      lane: (lane) => {
        const body = JSON.stringify({
          sessionId: laneSession(context.eventSessions, lane),
          name: "helpfulness",
          value: 0.8,
          comment: "answered the refund question",
        });
        return () => ({ path: "/api/sdk/scores", body });
      },
    }),
    define("GetSession", {
      apiKey: "read",
      expectStatus: 200,
      eventsPerRequest: 0,
      lane: () => () => {
        const id = nextSeeded();
        return { path: `/api/sdk/sessions/${id}`, pathParameters: { id } };
      },
    }),
    define("ListSessions", {
      apiKey: "read",
      expectStatus: 200,
      eventsPerRequest: 0,
      lane: () => () => ({ path: "/api/sdk/sessions", query: { limit: "50" } }),
    }),
    define("ListEvents", {
      apiKey: "read",
      expectStatus: 200,
      eventsPerRequest: 0,
      lane: () => () => {
        const id = nextSeeded();
        return { path: `/api/sdk/sessions/${id}/events`, pathParameters: { id }, query: { limit: "50" } };
      },
    }),
    define("AgentStats", {
      apiKey: "read",
      expectStatus: 200,
      eventsPerRequest: 0,
      lane: () => () => ({
        path: `/api/sdk/agents/${encodeURIComponent(context.seededAgent)}/stats`,
        pathParameters: { agentName: context.seededAgent },
      }),
    }),
  ];
}
