/**
 * Which sessions of a listing page match a score filter (score-filter.ts): per session one Query of its partition's
 * scores of that name (`begins_with(SK, "SCORE#")`, a FilterExpression on `name`, a projection of id, value and
 * update time), 16 at a time. The listing bounds the sessions examined per request (session-listing.ts), and each
 * session's Query is bounded by the scores a session may hold (LIMITS.scoresPerTarget, 1,000, kept exactly by its
 * SCORECOUNT: score-count.ts): at most 1,000 items read per session, usually one page.
 */
import { latestScore, matchesScoreFilter, type NamedScore, type ScoreFilter } from "../../domain/score-filter.js";
import { SCORE_PREFIX, sessionKey } from "../table/keys.js";
import { queryAll } from "../table/table-operations.js";

const CONCURRENCY = 16;

async function scoresNamed(sessionId: string, name: string, nowMs: number): Promise<NamedScore[]> {
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :scores)",
    FilterExpression: "#name = :name AND (attribute_not_exists(#ttl) OR #ttl > :now)",
    ProjectionExpression: "id, #value, updatedAt",
    ExpressionAttributeNames: { "#name": "name", "#ttl": "ttl", "#value": "value" },
    ExpressionAttributeValues: {
      ":pk": sessionKey(sessionId).PK,
      ":scores": SCORE_PREFIX,
      ":name": name,
      ":now": Math.floor(nowMs / 1000),
    },
  });
  return items.flatMap((item) => {
    const { value } = item;
    if (typeof value !== "number" && typeof value !== "boolean" && typeof value !== "string") return [];
    return [{ id: String(item.id), value, updatedAt: String(item.updatedAt) }];
  });
}

/** The ids among `sessionIds` whose latest score of the filter's name matches it. */
export async function sessionsMatchingScore(
  sessionIds: readonly string[],
  filter: ScoreFilter,
  nowMs = Date.now(),
): Promise<Set<string>> {
  const matching = new Set<string>();
  for (let start = 0; start < sessionIds.length; start += CONCURRENCY) {
    await Promise.all(
      sessionIds.slice(start, start + CONCURRENCY).map(async (sessionId) => {
        if (matchesScoreFilter(latestScore(await scoresNamed(sessionId, filter.name, nowMs)), filter)) {
          matching.add(sessionId);
        }
      }),
    );
  }
  return matching;
}
