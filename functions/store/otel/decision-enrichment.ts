/**
 * A model call seen by two spans that arrive in different requests (the client library's span ends first, so
 * its exporter usually sends it before the framework's span around it): the call recorded first is the one
 * event and the one count, and the later span's content enriches that event in place (domain/genai-call-merge.ts
 * mergedDecisionContent) — its input and output messages, tool calls, system instructions, answer text, each
 * the richer of the two. Its usage, model and cost are not touched, so nothing the stream consumer counts
 * changes (a replacement that counts alike counts nothing). Like otel-log-store.ts's attach, the event item is
 * rebuilt and written over the one read, conditioned on what was read: a log attach in between re-reads it.
 */
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import type { AgentEvent } from "../../domain/event.js";
import { type DecisionContent, mergedDecisionContent } from "../../domain/genai-call-merge.js";
import type { JsonObject } from "../../domain/json.js";
import type { Principal } from "../../domain/principal.js";
import { eventFromItem, eventItem } from "../events/event-store.js";
import { hasOffloadedFields } from "../payloads/payload-store.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { documentClient, tableName } from "../table/dynamo-client.js";
import { eventKey } from "../table/keys.js";
import { getItem } from "../table/table-operations.js";

/** Reads and writes of one enrichment while log attaches get in the way. */
const ATTEMPTS = 3;

function parsedObject(text: unknown): JsonObject | undefined {
  if (typeof text !== "string") return undefined;
  const value: unknown = JSON.parse(text);
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function contentOf(input: unknown, output: unknown, reasoning: unknown): DecisionContent {
  return {
    toolInput: parsedObject(input),
    toolOutput: parsedObject(output),
    reasoning: typeof reasoning === "string" ? reasoning : undefined,
  };
}

const same = (a: DecisionContent, b: DecisionContent) =>
  JSON.stringify([a.toolInput, a.toolOutput, a.reasoning]) === JSON.stringify([b.toolInput, b.toolOutput, b.reasoning]);

/**
 * Merges `content` (the partner span's) into the stored `llm_decision` `eventId` of `sessionId`. Nothing happens
 * when the event is not a model call's, when it already holds as much (a retried export), or when its content
 * was too large to keep in the item (offloaded: it is kept as it is).
 */
export async function enrichDecision(
  principal: Principal,
  target: { readonly sessionId: string; readonly eventId: string },
  content: DecisionContent,
): Promise<void> {
  const key = eventKey(target.sessionId, target.eventId);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const item = await getItem(key, { consistent: true });
    if (item?.eventType !== "llm_decision" || hasOffloadedFields(item)) return;
    const stored = contentOf(item.toolInputJson, item.toolOutputJson, item.reasoning);
    const merged = mergedDecisionContent(stored, content);
    if (same(stored, merged)) return;
    // A log attach rebuilds the event from its base (the span's own content): the base takes the partner's too.
    const base = parsedObject(item.logBase) as DecisionContent | undefined;
    const logBase = base === undefined ? undefined : JSON.stringify(mergedDecisionContent(base, content));
    const event: AgentEvent = { ...eventFromItem(item, true), ...merged };
    const rebuilt = await eventItem(event, principal.retentionDays, Number(item.ttl), {
      ...(typeof item.fingerprint === "string" ? { fingerprint: item.fingerprint } : {}),
      ...(logBase === undefined ? {} : { logBase }),
    });
    const logCount = typeof item.logCount === "number" ? item.logCount : undefined;
    try {
      await documentClient.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...rebuilt, ...(logCount === undefined ? {} : { logCount }) },
          ConditionExpression:
            logCount === undefined
              ? "attribute_exists(PK) AND attribute_not_exists(logCount)"
              : "attribute_exists(PK) AND logCount = :count",
          ...(logCount === undefined ? {} : { ExpressionAttributeValues: { ":count": logCount } }),
        }),
      );
      return;
    } catch (error) {
      // A log attach rewrote the event since it was read: read it again.
      if (!isConditionFailure(error) || attempt === ATTEMPTS) throw error;
    }
  }
}
