/**
 * An organisation's own model prices, checked before the shipped table (price-usage.ts). Read once per request
 * that prices something (never per event). For now no organisation has any: the store of organisation prices
 * (read once per warm container and cached) replaces this body.
 */
import type { OrganisationPrice } from "./price-usage.js";

/** The organisation's prices (matched like the table's rows, each from its `effectiveFrom` day). */
export async function loadOrganisationPrices(_orgId: string): Promise<readonly OrganisationPrice[]> {
  return [];
}
