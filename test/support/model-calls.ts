/**
 * Model calls for the counting tests: events carrying `model`, `usage`, `estimatedCost` and `costSource` as the
 * event item stores them (docs/data-model.md). Until the event routes accept these fields (issue 31's ingest),
 * they are written through the store layer (createEvent, the handlers' own code path, which stores the event's
 * fields as given); this is the one place to switch to POST /api/sdk/events once they do.
 */
import type { NewEvent } from "../../functions/domain/event.js";
import type { TokenUsage } from "../../functions/pricing/usage.js";
import { createEvent } from "../../functions/store/events/event-store.js";
import { principalFor } from "./seed.js";

export interface ModelCall {
  readonly model?: string;
  readonly usage?: TokenUsage;
  readonly estimatedCost?: number;
  readonly costSource?: "reported" | "table" | "organisation" | "unpriced";
  readonly eventType?: NewEvent["eventType"];
}

/** Records `call` as an event of the session (of organisation `orgId`, live); resolves with the event id. */
export async function recordModelCall(orgId: string, sessionId: string, call: ModelCall): Promise<string> {
  const { eventType = "llm_decision", ...fields } = call;
  const event = await createEvent(principalFor(orgId), { sessionId, eventType, ...fields } as unknown as NewEvent);
  return event.id;
}
