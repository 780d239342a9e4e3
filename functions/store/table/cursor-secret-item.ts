/**
 * The cursor-signing secret's item as an entity: what the deployment and the
 * table setup write (cursor-secret.ts) and the read routes read
 * (cursor-signing.ts). Its own module so that the read routes' bundles carry
 * none of the writing side. Free of environment reads.
 */
import { defineEntity, type Item, ItemShapeError } from "./entity.js";
import { serviceSecretKey } from "./keys.js";

export const SERVICE_SECRET_ENTITY = "serviceSecret";

/** The secret's item: `SERVICE` / `CURSOR_SECRET`, the key base64-encoded in `secret`. */
export const cursorSecretEntity = defineEntity<{ readonly secret: string }, { readonly secret: string }>({
  tag: SERVICE_SECRET_ENTITY,
  fields: { secret: "string" },
  key: () => serviceSecretKey(),
  attributes: ({ secret }) => ({ secret }),
});

/** The HMAC key a stored secret item holds, or undefined when the item is missing, empty or not a secret. */
export function cursorSecretOf(item: Item | undefined): Buffer | undefined {
  if (item === undefined) return undefined;
  let secret: string;
  try {
    ({ secret } = cursorSecretEntity.fromItem(item));
  } catch (error) {
    if (error instanceof ItemShapeError) return undefined;
    throw error;
  }
  return secret === "" ? undefined : Buffer.from(secret, "base64");
}
