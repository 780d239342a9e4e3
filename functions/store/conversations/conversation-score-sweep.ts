/**
 * A conversation's own scores go when its last run goes (issue 33): the run's deletion (or a user's erasure, which
 * deletes the user's runs) withdraws it from the summary's `runCount`; at 0 the conversation is no longer shown (404)
 * and its scores are swept with their counts withdrawn, and its SCORECOUNT deleted. No score can be written to it
 * meanwhile: a score's transaction checks `runCount > 0` (score-targets.ts). The summary itself stays until its TTL,
 * as before; a run joining again makes it shown again, without the swept scores.
 */
import type { Environment } from "../../domain/api-key.js";
import { sweepScoresOf } from "../scores/score-sweep.js";
import { conversationKey } from "../table/keys.js";
import { getItem } from "../table/table-operations.js";

/** Sweeps the conversation's scores if it has no run left; resolves with how many were swept. */
export async function sweepScoresOfEmptyConversation(
  orgId: string,
  environment: Environment,
  conversationId: string,
): Promise<number> {
  const key = conversationKey(orgId, environment, conversationId);
  const summary = await getItem(key, { projection: ["runCount"] });
  if (summary === undefined || (typeof summary.runCount === "number" && summary.runCount > 0)) return 0;
  return sweepScoresOf(key.PK, { andCount: true });
}
