/**
 * A conversation's own scores go when its last run goes (issue 33): the run's deletion (or a user's erasure, which
 * deletes the user's runs) withdraws it from the summary's `runCount`; at 0 the conversation is no longer shown (404)
 * and its scores are swept with their counts withdrawn, its SCORECOUNT deleted, and then the summary itself (if no
 * run joined meanwhile): it holds its first run's agent and user, which an erasure of that user must not leave
 * behind. No score can be written to it meanwhile: a score's transaction checks `runCount > 0` (score-targets.ts).
 * A run naming the conversation later starts it afresh, as its first run.
 */
import type { Environment } from "../../domain/api-key.js";
import { sweepScoresOf } from "../scores/score-sweep.js";
import { conversationKey } from "../table/keys.js";
import { deleteIfExists, getItem } from "../table/table-operations.js";

/** Removes the conversation (its scores, then its summary) if it has no run left; resolves with how many scores were swept. */
export async function sweepScoresOfEmptyConversation(
  orgId: string,
  environment: Environment,
  conversationId: string,
): Promise<number> {
  const key = conversationKey(orgId, environment, conversationId);
  const summary = await getItem(key, { projection: ["runCount"] });
  if (summary === undefined || (typeof summary.runCount === "number" && summary.runCount > 0)) return 0;
  const swept = await sweepScoresOf(key.PK, { andCount: true });
  await deleteIfExists(key, { expression: "runCount <= :none", values: { ":none": 0 } });
  return swept;
}
