/**
 * POST /api/sdk/events/batch: up to 100 events, each validated and authorised
 * on its own; valid events are stored even when others fail. 200 with one
 * result per event, in order: 201 + id only once the event is durably written.
 */

import { AtsError, invalidFieldsError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";
import { apiKeyRoute } from "../http/api-key-route.js";
import { errorResponse } from "../http/error-mapper.js";
import { toFieldIssues } from "../http/json-body.js";
import { jsonResponse } from "../http/responses.js";
import { logError } from "../runtime/log.js";
import { batchEventItem, createEventBatchBody } from "../schemas/event-schemas.js";
import { type BatchEventInput, recordEventBatch } from "../store/events/event-batch-store.js";

type ItemResult = { index: number; status: number; id?: string; replayed?: true; error?: unknown };

export const handler = apiKeyRoute(
  "CreateEventBatch",
  { body: createEventBatchBody, maxBodyBytes: LIMITS.eventBodyBytes },
  async ({ caller, body, recordIngested }) => {
    const results: ItemResult[] = [];
    const valid: BatchEventInput[] = [];
    body.events.forEach((candidate, index) => {
      const parsed = batchEventItem.safeParse(candidate);
      if (!parsed.success) {
        const refusal = errorResponse(invalidFieldsError("event", toFieldIssues(parsed.error.issues)));
        results.push({ index, status: 400, error: JSON.parse(refusal.body ?? "{}") });
        return;
      }
      const { idempotencyKey, ...event } = parsed.data;
      valid.push({ index, event, idempotencyKey });
    });
    for (const outcome of await recordEventBatch(caller, valid)) {
      if ("id" in outcome) {
        results.push({
          index: outcome.index,
          status: 201,
          id: outcome.id,
          ...(outcome.replayed ? { replayed: true as const } : {}),
        });
        continue;
      }
      if (!(outcome.error instanceof AtsError)) logError("batch event failed", outcome.error, { index: outcome.index });
      const mapped = errorResponse(outcome.error);
      results.push({ index: outcome.index, status: mapped.statusCode ?? 500, error: JSON.parse(mapped.body ?? "{}") });
    }
    results.sort((a, b) => a.index - b.index);
    recordIngested(results.filter((result) => result.status === 201 && !result.replayed).length);
    return jsonResponse(200, { results });
  },
);
