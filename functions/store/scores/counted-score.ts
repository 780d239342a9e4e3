/**
 * What the stream consumer counted of a score, as recorded on the score item (`counted`, a map of our own names),
 * and what a score item asks to be counted now. The tenant is the score's own (`orgId`, `environment`), which no
 * write changes.
 */
import type { Environment } from "../../domain/api-key.js";
import { SCORE_VALUE_KINDS, type ScoreValueKind } from "../../domain/score.js";
import type { CountedScore } from "../../domain/score-tally.js";
import type { Item } from "../table/entity.js";
import { tenant } from "../table/keys.js";
import { DEFAULT_ROLLUP_RETENTION_DAYS, expiryEpochSeconds } from "../table/retention.js";

function isValueKind(value: unknown): value is ScoreValueKind {
  return (SCORE_VALUE_KINDS as readonly unknown[]).includes(value);
}

/** The `counted` record of a score item, or undefined when nothing of it is counted (or the record is malformed). */
export function countedScoreOf(item: Item | undefined): CountedScore | undefined {
  const counted = item?.counted;
  if (typeof counted !== "object" || counted === null || Array.isArray(counted)) return undefined;
  const { agentName, day, name, valueKind, value, ttl } = counted as Record<string, unknown>;
  if (typeof agentName !== "string" || typeof day !== "string" || typeof name !== "string") return undefined;
  if (!isValueKind(valueKind) || typeof ttl !== "number") return undefined;
  if (typeof value !== "number" && typeof value !== "boolean" && typeof value !== "string") return undefined;
  return { agentName, day, name, valueKind, value, ttl };
}

/** The score item's content as it would be counted now (a label before the place's cap decides), or undefined. */
export function scoreToCount(item: Item, nowMs: number): CountedScore | undefined {
  const { agentName, sessionDay, name, valueKind, value } = item;
  if (typeof agentName !== "string" || typeof sessionDay !== "string" || typeof name !== "string") return undefined;
  if (!isValueKind(valueKind)) return undefined;
  if (typeof value !== "number" && typeof value !== "boolean" && typeof value !== "string") return undefined;
  const retention =
    typeof item.rollupRetentionDays === "number" ? item.rollupRetentionDays : DEFAULT_ROLLUP_RETENTION_DAYS;
  return { agentName, day: sessionDay, name, valueKind, value, ttl: expiryEpochSeconds(nowMs, retention) };
}

/** The tenant prefix (`ORG#…#ENV#…`) a score item is counted under. */
export function scoreTenantOf(item: Item): string {
  return tenant(String(item.orgId), String(item.environment) as Environment);
}

/** The condition on a score item's count version as read (absent: never written with one). */
export function versionCondition(item: Item): { expression: string; values: Record<string, unknown> } {
  return typeof item.countVersion === "number"
    ? { expression: "countVersion = :version", values: { ":version": item.countVersion } }
    : { expression: "attribute_not_exists(countVersion)", values: {} };
}
