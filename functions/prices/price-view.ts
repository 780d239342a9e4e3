/** What the price routes answer: a stored price and an audit record as JSON (no storage attributes). */
import type { PriceAuditRecord, StoredOrganisationPrice } from "../store/prices/organisation-price-store.js";
import { ratesOf } from "../store/prices/organisation-price-store.js";

export function priceView(price: StoredOrganisationPrice) {
  return {
    model: price.model,
    effectiveFrom: price.effectiveFrom,
    ...ratesOf(price),
    updatedAt: price.updatedAt,
    updatedBy: price.updatedBy,
  };
}

export function priceAuditView(record: PriceAuditRecord) {
  return {
    id: record.id,
    action: record.action,
    model: record.model,
    effectiveFrom: record.effectiveFrom,
    actor: record.actor,
    actorId: record.actorId ?? null,
    at: record.at,
    before: record.before === undefined ? null : ratesOf(record.before),
    after: record.after === undefined ? null : ratesOf(record.after),
  };
}
