/**
 * One model call seen by two spans that nothing links: a framework whose instrumentation never makes its span
 * the current one (OpenInference's and Traceloop's LangChain callbacks) leaves the client library's span beside
 * its own, under the run's span. The two are told to be one call by time, scope and model alone. Pure; the
 * planner (genai-trace-plan.ts) pairs within a request and against the calls its trace recorded earlier.
 */

/** Where, when and by what a model call's span ran: what tells a call seen by two unlinked spans. */
export interface CallExtent {
  readonly spanId: string;
  readonly parentSpanId?: string | undefined;
  readonly startMs: number;
  readonly endMs: number;
  /** The instrumentation scope that emitted the span (OTLP `scope.name`). */
  readonly scope?: string | undefined;
  /** The models it names (requested, answered with). */
  readonly models?: readonly string[] | undefined;
}

/** Longest scope or model name an extent keeps (the trace's record holds one per model call). */
export const EXTENT_NAME_CHARS = 100;
/**
 * Most calls among which unlinked pairs are looked for at once (a request's and those its trace recorded): the
 * search compares the calls that overlap in time, so a trace of more is left unpaired rather than searched.
 */
export const PAIRING_CALLS = 2000;
/**
 * How far, in milliseconds, a bound of one span may seem to lie outside the other's while the two saw one call.
 * OpenTelemetry JS (sdk-trace 2) takes a span's start from `Date.now()` — whole milliseconds — and its end as that
 * start plus the duration the monotonic clock measured, so each span's bounds carry its start's truncation and two
 * spans' bounds are up to 1 ms off each other's; the service keeps whole milliseconds of OTLP's nanoseconds, up to
 * 1 ms more. Measured on the LangChain and OpenAI spans of one call: in whole milliseconds, the two did not contain
 * one another (the client's ending after LangChain's, or both bounds equal) in 12 of 40 calls (docs/otel.md "One
 * model call, two spans").
 */
export const CLOCK_SLACK_MS = 2;

/** Whether two spans name a common model (or either names none); names compared without case. */
function sameModel(a: CallExtent, b: CallExtent): boolean {
  const left = a.models ?? [];
  const right = b.models ?? [];
  if (left.length === 0 || right.length === 0) return true;
  return left.some((model) =>
    right.some((other) => {
      const [x, y] = [model.toLowerCase(), other.toLowerCase()];
      return x.includes(y) || y.includes(x);
    }),
  );
}

/** How far `inner` reaches outside `outer`, in milliseconds (0 within it). */
function reachOutside(inner: CallExtent, outer: CallExtent): number {
  return Math.max(0, outer.startMs - inner.startMs) + Math.max(0, inner.endMs - outer.endMs);
}

/**
 * Whether `inner` is the same model call as `outer` seen by another instrumentation: a span of another scope
 * (both named), of the same model, neither the parent of the other (parent and child are merged as such), that
 * started and ended within `outer`, each bound by at most CLOCK_SLACK_MS outside it. The next call is never
 * within a call that lasted longer than the slack; of calls shorter than it, time cannot tell one from the next
 * (the one nearest candidate rule of enclosedPairs still keeps a call seen twice from taking a third).
 */
export function runsWithin(inner: CallExtent, outer: CallExtent): boolean {
  if (
    inner.spanId === outer.spanId ||
    inner.scope === undefined ||
    outer.scope === undefined ||
    inner.scope === outer.scope ||
    inner.parentSpanId === outer.spanId ||
    outer.parentSpanId === inner.spanId ||
    inner.startMs < outer.startMs - CLOCK_SLACK_MS ||
    inner.endMs > outer.endMs + CLOCK_SLACK_MS
  )
    return false;
  return sameModel(inner, outer);
}

/** Two calls that may be one, oriented: `inner` the one reaching less outside the other, and by how much. */
interface Candidate {
  readonly inner: CallExtent;
  readonly outer: CallExtent;
  readonly reach: number;
}

/**
 * `a` and `b` as a candidate pair, or none. When each runs within the other (bounds within the slack), the
 * inner one is the one reaching less outside the other, then the shorter, then the later to start, then the
 * lower span id: the same spans are always oriented alike.
 */
function candidate(a: CallExtent, b: CallExtent): Candidate | undefined {
  const aWithin = runsWithin(a, b);
  const bWithin = runsWithin(b, a);
  if (!aWithin && !bWithin) return undefined;
  if (aWithin !== bWithin) return aWithin ? { inner: a, outer: b, reach: reachOutside(a, b) } : candidateOf(b, a);
  const order =
    reachOutside(a, b) - reachOutside(b, a) ||
    a.endMs - a.startMs - (b.endMs - b.startMs) ||
    b.startMs - a.startMs ||
    (a.spanId < b.spanId ? -1 : 1);
  return order < 0 ? candidateOf(a, b) : candidateOf(b, a);
}

function candidateOf(inner: CallExtent, outer: CallExtent): Candidate {
  return { inner, outer, reach: reachOutside(inner, outer) };
}

/** Each call's nearest candidate partners: the least reach outside, and who is at it (several: ambiguous). */
type Nearest = Map<string, { reach: number; partners: string[] }>;

function noteNearest(nearest: Nearest, spanId: string, partner: string, reach: number): void {
  const known = nearest.get(spanId);
  if (known === undefined || reach < known.reach) nearest.set(spanId, { reach, partners: [partner] });
  else if (reach === known.reach) known.partners.push(partner);
}

/** Calls everyone of `calls` is compared with: those starting before it ends (with the slack), sorted by start. */
function eachOverlapping(calls: readonly CallExtent[], visit: (found: Candidate) => void): void {
  const byStart = [...calls].sort((a, b) => a.startMs - b.startMs);
  for (const [index, first] of byStart.entries()) {
    for (let next = index + 1; next < byStart.length; next++) {
      const second = byStart[next] as CallExtent;
      if (second.startMs > first.endMs + CLOCK_SLACK_MS) break;
      const found = candidate(first, second);
      if (found !== undefined) visit(found);
    }
  }
}

/**
 * The pairs of calls seen by two unlinked spans (runsWithin), inner span id → outer span id: only two calls
 * that are each other's one nearest candidate (the least reach outside) — a span within two candidates alike,
 * or around two, is no one's partner, so two calls at once are never taken for one. None among more than
 * PAIRING_CALLS calls.
 */
export function enclosedPairs(calls: readonly CallExtent[]): Map<string, string> {
  if (calls.length > PAIRING_CALLS) return new Map();
  const nearest: Nearest = new Map();
  eachOverlapping(calls, ({ inner, outer, reach }) => {
    noteNearest(nearest, inner.spanId, outer.spanId, reach);
    noteNearest(nearest, outer.spanId, inner.spanId, reach);
  });
  const isOnly = (spanId: string, partner: string, reach: number) => {
    const known = nearest.get(spanId);
    return known?.reach === reach && known.partners.length === 1 && known.partners[0] === partner;
  };
  const pairs = new Map<string, string>();
  eachOverlapping(calls, ({ inner, outer, reach }) => {
    if (isOnly(inner.spanId, outer.spanId, reach) && isOnly(outer.spanId, inner.spanId, reach))
      pairs.set(inner.spanId, outer.spanId);
  });
  return pairs;
}
