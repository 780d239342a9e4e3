/**
 * Persistence of an organisation's own model prices, in the organisation's partition:
 * - each dated price is one item, `PRICES#<org>` / `PRICE#<model>#<YYYY-MM-DD>` (keys.ts organisationPriceKey), so
 *   all of an organisation's prices are one Query and one model's prices a Query of its prefix;
 * - the organisation item `ORG#<org>` / `ORG` counts them (`priceCount`): a new price and the count move together
 *   in one transaction, whose condition refuses the 501st;
 * - every change writes an audit item (`AUDIT#PRICE#<auditId>`) in the same transaction: who, when, which price,
 *   and its rates before and after.
 * Writes are guarded by the item's `version`, so a change made between the read and the write is never lost
 * (the write is retried on the new state, or refused with 409).
 */
import { ConflictError, NotFoundError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { PriceTier, Rates } from "../../pricing/price-table.js";
import type { OrganisationPrice } from "../../pricing/price-usage.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { defineEntity } from "../table/entity.js";
import {
  ORGANISATION_PRICE_PREFIX,
  organisationKey,
  organisationModelPricePrefix,
  organisationPartition,
  organisationPriceKey,
  organisationPricesPartition,
  PRICE_AUDIT_PREFIX,
  priceAuditKey,
} from "../table/keys.js";
import { ABSENT, queryAll, queryPage, type TransactItem, transact } from "../table/table-operations.js";
import { ORGANISATION_PRICE_LIMITS } from "./price-limits.js";

export const ORGANISATION_PRICE_ENTITY = "organisationPrice";
export const PRICE_AUDIT_ENTITY = "priceAudit";

/** A long-prompt tier as a request may send it (rates it leaves out may be `undefined`). */
export type LoosePriceTier = { readonly above: number } & {
  readonly [Rate in keyof Rates]?: number | undefined;
};

/** A price's rates (USD per million tokens) with its long-prompt tiers: what a change sets. */
export interface PriceRates {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number | undefined;
  readonly cacheWrite?: number | undefined;
  readonly reasoning?: number | undefined;
  readonly tiers?: readonly LoosePriceTier[] | undefined;
}

/** A model's price from a day on, as set by the organisation. */
export interface PriceSetting extends PriceRates {
  /** Trimmed and lower-cased (matching ignores case): the identity of the model's prices. */
  readonly model: string;
  /** `YYYY-MM-DD` (UTC). */
  readonly effectiveFrom: string;
}

/** A stored organisation price: the setting, who set it last and when. */
export interface StoredOrganisationPrice extends PriceSetting {
  readonly updatedAt: string;
  readonly updatedBy: string;
  readonly updatedById?: string | undefined;
  /** Increases with every change; writes are conditional on it. */
  readonly version: number;
}

export type PriceAuditAction = "price.set" | "price.deleted";

/** One change of an organisation's prices. */
export interface PriceAuditRecord {
  readonly id: string;
  readonly action: PriceAuditAction;
  readonly model: string;
  readonly effectiveFrom: string;
  readonly actor: string;
  readonly actorId?: string | undefined;
  readonly at: string;
  /** The rates before the change; absent when the price was new. */
  readonly before?: PriceRates | undefined;
  /** The rates after the change; absent when the price was deleted. */
  readonly after?: PriceRates | undefined;
}

/** Who changed a price, as the audit records it. */
export interface PriceActor {
  readonly name: string;
  readonly id?: string | undefined;
}

const priceEntity = defineEntity<StoredOrganisationPrice, { orgId: string; price: StoredOrganisationPrice }>({
  tag: ORGANISATION_PRICE_ENTITY,
  fields: {
    model: "string",
    effectiveFrom: "string",
    input: "number",
    output: "number",
    updatedAt: "string",
    updatedBy: "string",
    version: "number",
  },
  storageAttributes: ["orgId"],
  key: ({ orgId, price }) => organisationPriceKey(orgId, price.model, price.effectiveFrom),
  attributes: ({ orgId, price }) => ({ orgId, ...withoutUndefined(price) }),
});

const auditEntity = defineEntity<PriceAuditRecord, { orgId: string; audit: PriceAuditRecord }>({
  tag: PRICE_AUDIT_ENTITY,
  fields: {
    id: "string",
    action: "string",
    model: "string",
    effectiveFrom: "string",
    actor: "string",
    at: "string",
  },
  storageAttributes: ["orgId"],
  key: ({ orgId, audit }) => priceAuditKey(orgId, audit.id),
  attributes: ({ orgId, audit }) => ({ orgId, ...withoutUndefined(audit) }),
});

/** The document client refuses `undefined` values (removeUndefinedValues is off): optional fields are left out. */
function withoutUndefined<T extends object>(value: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));
}

/** The rates of a price (the fields the audit keeps and the lookup prices with), nothing else, tiers by `above`. */
export function ratesOf(price: PriceRates): Rates & { readonly tiers?: readonly PriceTier[] } {
  return {
    input: price.input,
    output: price.output,
    ...(price.cacheRead !== undefined && { cacheRead: price.cacheRead }),
    ...(price.cacheWrite !== undefined && { cacheWrite: price.cacheWrite }),
    ...(price.reasoning !== undefined && { reasoning: price.reasoning }),
    ...(price.tiers !== undefined &&
      price.tiers.length > 0 && {
        tiers: [...price.tiers]
          .sort((a, b) => a.above - b.above)
          .map((tier) => withoutUndefined(tier) as unknown as PriceTier),
      }),
  };
}

function sameRates(a: PriceRates, b: PriceRates): boolean {
  return JSON.stringify(ratesOf(a)) === JSON.stringify(ratesOf(b));
}

/** Prices by model, then newest `effectiveFrom` first (plain string order: names and ISO days). */
function byModelThenNewest(a: PriceSetting, b: PriceSetting): number {
  if (a.model !== b.model) return a.model < b.model ? -1 : 1;
  return a.effectiveFrom < b.effectiveFrom ? 1 : a.effectiveFrom > b.effectiveFrom ? -1 : 0;
}

async function queryPrices(orgId: string, prefix: string, consistent: boolean): Promise<StoredOrganisationPrice[]> {
  const items = await queryAll(
    {
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
      ExpressionAttributeValues: { ":pk": organisationPricesPartition(orgId), ":prefix": prefix },
      ConsistentRead: consistent,
    },
    // The count caps what is stored; the read is bounded whatever the table holds.
    { limit: ORGANISATION_PRICE_LIMITS.pricesPerOrganisation },
  );
  return items.map(priceEntity.fromItem);
}

/**
 * An organisation's prices (one Query of its partition), by model then newest first. `consistent: false` is what
 * pricing at ingest reads (through the cache of pricing/organisation-prices.ts): half the read cost, and a change
 * is seen within a second or so anyway.
 */
export async function listOrganisationPrices(
  orgId: string,
  options: { readonly consistent?: boolean } = {},
): Promise<StoredOrganisationPrice[]> {
  const prices = await queryPrices(orgId, ORGANISATION_PRICE_PREFIX, options.consistent ?? true);
  return prices.sort(byModelThenNewest);
}

/** The prices as the lookup takes them (pricing/price-lookup.ts DatedPrice): name, day, rates, tiers. */
export function asOrganisationPrice(price: PriceSetting): OrganisationPrice {
  return { model: price.model, effectiveFrom: price.effectiveFrom, ...ratesOf(price) };
}

function auditPut(orgId: string, change: Omit<PriceAuditRecord, "id">): TransactItem {
  const audit: PriceAuditRecord = { id: newId("audit", Date.parse(change.at)), ...change };
  return { Put: { Item: auditEntity.toItem({ orgId, audit }), ConditionExpression: ABSENT } };
}

/** The organisation's count of prices moved by `delta`; an increase fails past the limit (or without the organisation). */
function priceCountChange(orgId: string, delta: number): TransactItem {
  return {
    Update: {
      Key: organisationKey(orgId),
      UpdateExpression: "ADD priceCount :delta",
      ConditionExpression:
        delta > 0
          ? "attribute_exists(PK) AND (attribute_not_exists(priceCount) OR priceCount <= :most)"
          : "attribute_exists(PK)",
      ExpressionAttributeValues: {
        ":delta": delta,
        ...(delta > 0 && { ":most": ORGANISATION_PRICE_LIMITS.pricesPerOrganisation - delta }),
      },
    },
  };
}

function versionGuard(version: number) {
  return {
    ConditionExpression: "#version = :version",
    ExpressionAttributeNames: { "#version": "version" },
    ExpressionAttributeValues: { ":version": version },
  };
}

const ATTEMPTS = 3;

function changedConcurrently(model: string): ConflictError {
  return new ConflictError(`The prices of ${model} were changed by another request; reload them and retry`);
}

/**
 * Sets the organisation's price of a model from a day on: a new dated price, or new rates for an existing one.
 * Returns the stored price and whether it was new; the same rates again change nothing (and audit nothing).
 */
export async function setOrganisationPrice(
  orgId: string,
  setting: PriceSetting,
  actor: PriceActor,
  nowMs = Date.now(),
): Promise<{ price: StoredOrganisationPrice; created: boolean }> {
  const { model, effectiveFrom } = setting;
  for (let attempt = 1; ; attempt++) {
    const modelPrices = await queryPrices(orgId, organisationModelPricePrefix(model), true);
    const existing = modelPrices.find((price) => price.effectiveFrom === effectiveFrom);
    if (existing !== undefined && sameRates(existing, setting)) return { price: existing, created: false };
    if (existing === undefined && modelPrices.length >= ORGANISATION_PRICE_LIMITS.pricesPerModel) {
      throw new ConflictError(
        `${model} has ${ORGANISATION_PRICE_LIMITS.pricesPerModel} dated prices, the most allowed; delete one before adding another`,
      );
    }
    const at = new Date(nowMs).toISOString();
    const price: StoredOrganisationPrice = {
      model,
      effectiveFrom,
      ...ratesOf(setting),
      updatedAt: at,
      updatedBy: actor.name,
      updatedById: actor.id,
      version: (existing?.version ?? 0) + 1,
    };
    const item = priceEntity.toItem({ orgId, price });
    const audit = auditPut(orgId, {
      action: "price.set",
      model,
      effectiveFrom,
      actor: actor.name,
      actorId: actor.id,
      at,
      before: existing === undefined ? undefined : ratesOf(existing),
      after: ratesOf(setting),
    });
    try {
      await transact(
        existing === undefined
          ? [{ Put: { Item: item, ConditionExpression: ABSENT } }, priceCountChange(orgId, 1), audit]
          : [{ Put: { Item: item, ...versionGuard(existing.version) } }, audit],
      );
      return { price, created: existing === undefined };
    } catch (error) {
      if (existing === undefined && isConditionFailure(error, 1)) {
        throw new ConflictError(
          `Organisation ${orgId} has ${ORGANISATION_PRICE_LIMITS.pricesPerOrganisation} prices, the most allowed; delete one before adding another`,
        );
      }
      if (!isConditionFailure(error)) throw error;
      if (attempt >= ATTEMPTS) throw changedConcurrently(model);
    }
  }
}

/** Prices deleted per transaction: each is a Delete and an audit Put, plus the count's Update (at most 100 items). */
const DELETES_PER_TRANSACTION = 40;

/**
 * Deletes the organisation's price of a model from one day (`effectiveFrom`), or all its dated prices; returns
 * what was deleted. 404 when there is none.
 */
export async function deleteOrganisationPrices(
  orgId: string,
  model: string,
  effectiveFrom: string | undefined,
  actor: PriceActor,
  nowMs = Date.now(),
): Promise<StoredOrganisationPrice[]> {
  const deleted: StoredOrganisationPrice[] = [];
  for (let attempt = 1; ; attempt++) {
    const modelPrices = await queryPrices(orgId, organisationModelPricePrefix(model), true);
    const doomed = modelPrices.filter((price) => effectiveFrom === undefined || price.effectiveFrom === effectiveFrom);
    if (doomed.length === 0) {
      if (deleted.length > 0) return deleted; // deleted meanwhile by another request: the outcome is the same
      throw new NotFoundError(
        effectiveFrom === undefined
          ? `No price of ${model} in organisation ${orgId}`
          : `No price of ${model} from ${effectiveFrom} in organisation ${orgId}`,
      );
    }
    const at = new Date(nowMs).toISOString();
    try {
      for (let start = 0; start < doomed.length; start += DELETES_PER_TRANSACTION) {
        const chunk = doomed.slice(start, start + DELETES_PER_TRANSACTION);
        await transact([
          ...chunk.flatMap((price) => [
            {
              Delete: {
                Key: organisationPriceKey(orgId, price.model, price.effectiveFrom),
                ...versionGuard(price.version),
              },
            },
            auditPut(orgId, {
              action: "price.deleted",
              model,
              effectiveFrom: price.effectiveFrom,
              actor: actor.name,
              actorId: actor.id,
              at,
              before: ratesOf(price),
            }),
          ]),
          priceCountChange(orgId, -chunk.length),
        ]);
        deleted.push(...chunk);
      }
      return deleted;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (attempt >= ATTEMPTS) throw changedConcurrently(model);
    }
  }
}

/** The newest changes of the organisation's prices (all models), newest first. */
export async function listPriceAudit(
  orgId: string,
  limit: number = ORGANISATION_PRICE_LIMITS.auditPage,
): Promise<PriceAuditRecord[]> {
  const page = await queryPage({
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
    ExpressionAttributeValues: { ":pk": organisationPartition(orgId), ":prefix": PRICE_AUDIT_PREFIX },
    ScanIndexForward: false,
    Limit: limit,
    ConsistentRead: true,
  });
  return page.items.map(auditEntity.fromItem);
}
