/**
 * Persistence of an organisation's score configurations (issue 33): each score name's configuration is one item,
 * `SCORECONFIGS#<org>` / `SCORECONFIG#<name>` (keys.ts scoreConfigKey), so all of an organisation's configurations
 * are one Query (at most SCORE_CONFIG_LIMITS.configsPerOrganisation items). The organisation item counts them
 * (`scoreConfigCount`): a new configuration and the count move together in one transaction, whose condition
 * refuses the 101st; a replacement is one Put, a deletion a Delete with the count's Update.
 */
import { ConflictError, NotFoundError } from "../../domain/errors.js";
import { SCORE_CONFIG_LIMITS, type ScoreConfig } from "../../domain/score-config.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { defineEntity } from "../table/entity.js";
import { organisationKey, SCORE_CONFIG_PREFIX, scoreConfigKey, scoreConfigsPartition } from "../table/keys.js";
import { ABSENT, getItem, queryAll, type TransactItem, transact } from "../table/table-operations.js";

export const SCORE_CONFIG_ENTITY = "scoreConfig";

const scoreConfigEntity = defineEntity<ScoreConfig, { orgId: string; config: ScoreConfig }>({
  tag: SCORE_CONFIG_ENTITY,
  fields: { name: "string", dataType: "string", updatedAt: "string", updatedBy: "string" },
  storageAttributes: ["orgId"],
  key: ({ orgId, config }) => scoreConfigKey(orgId, config.name),
  attributes: ({ orgId, config }) => ({
    orgId,
    ...Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined)),
  }),
});

/** Every configuration of the organisation, by score name. */
export async function listScoreConfigs(orgId: string): Promise<ScoreConfig[]> {
  const items = await queryAll({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
    ExpressionAttributeValues: { ":pk": scoreConfigsPartition(orgId), ":prefix": SCORE_CONFIG_PREFIX },
  });
  return items.map((item) => scoreConfigEntity.fromItem(item)).sort((a, b) => (a.name < b.name ? -1 : 1));
}

function countChange(orgId: string, delta: 1 | -1): TransactItem {
  return {
    Update: {
      Key: organisationKey(orgId),
      UpdateExpression: "ADD scoreConfigCount :delta",
      ConditionExpression:
        delta > 0
          ? "attribute_exists(PK) AND (attribute_not_exists(scoreConfigCount) OR scoreConfigCount < :most)"
          : "attribute_exists(PK)",
      ExpressionAttributeValues: {
        ":delta": delta,
        ...(delta > 0 && { ":most": SCORE_CONFIG_LIMITS.configsPerOrganisation }),
      },
    },
  };
}

/** Writes attempted before a configuration changing under the request is a 409. */
const ATTEMPTS = 3;

/** Sets a score name's configuration (new or replaced); says whether it was new. */
export async function putScoreConfig(orgId: string, config: ScoreConfig): Promise<{ created: boolean }> {
  const item = scoreConfigEntity.toItem({ orgId, config });
  for (let attempt = 1; ; attempt++) {
    const existing = await getItem(scoreConfigKey(orgId, config.name), { projection: ["PK"] });
    try {
      if (existing === undefined) {
        await transact([{ Put: { Item: item, ConditionExpression: ABSENT } }, countChange(orgId, 1)]);
      } else {
        await transact([{ Put: { Item: item, ConditionExpression: "attribute_exists(PK)" } }]);
      }
      return { created: existing === undefined };
    } catch (error) {
      if (existing === undefined && isConditionFailure(error, 1)) {
        throw new ConflictError(
          `The organisation has ${SCORE_CONFIG_LIMITS.configsPerOrganisation} score configurations, the most allowed; delete one before adding another`,
        );
      }
      if (!isConditionFailure(error)) throw error;
      // Created or deleted by another request since the read: read again.
      if (attempt >= ATTEMPTS)
        throw new ConflictError(`The configuration of score ${config.name} kept changing; retry`);
    }
  }
}

/** Deletes a score name's configuration; 404 when there is none. */
export async function deleteScoreConfig(orgId: string, name: string): Promise<void> {
  try {
    await transact([
      { Delete: { Key: scoreConfigKey(orgId, name), ConditionExpression: "attribute_exists(PK)" } },
      countChange(orgId, -1),
    ]);
  } catch (error) {
    if (isConditionFailure(error, 0)) throw new NotFoundError(`Score ${name} has no configuration`);
    throw error;
  }
}
