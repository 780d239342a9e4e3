/**
 * Which requests write (POST, PATCH): those that may carry an `Idempotency-Key` (idempotency.ts). Apart from
 * idempotency.ts, which imports the store, so that the OpenAPI generator can ask without a table.
 */
export function isWrite(route: { readonly method: string }): boolean {
  return route.method === "POST" || route.method === "PATCH";
}
