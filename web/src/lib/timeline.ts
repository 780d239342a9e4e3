/** Event timeline order: by occurredAt (when it happened), falling back to createdAt (when it was stored). */
import type { SessionEvent } from "../api/types";

export function eventTime(event: Pick<SessionEvent, "occurredAt" | "createdAt">): number {
  const occurred = event.occurredAt === undefined ? Number.NaN : Date.parse(event.occurredAt);
  return Number.isNaN(occurred) ? Date.parse(event.createdAt) : occurred;
}

export interface TimelineEntry {
  event: SessionEvent;
  /** Milliseconds since the session started. */
  offsetMs: number;
}

/** Sorted by time (stable for equal times: the API's order, then id), with offsets from the session start. */
export function buildTimeline(events: readonly SessionEvent[], sessionStart: string): TimelineEntry[] {
  const start = Date.parse(sessionStart);
  return events
    .map((event, index) => ({ event, index, time: eventTime(event) }))
    .sort((a, b) => a.time - b.time || a.index - b.index)
    .map(({ event, time }) => ({ event, offsetMs: Number.isNaN(start) ? 0 : time - start }));
}
