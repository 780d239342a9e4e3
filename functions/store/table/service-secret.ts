/**
 * The deployment's secret (`SERVICE` / `CURSOR_SECRET`, created at deployment, see cursor-secret.ts): read once
 * per container, and only by the routes that sign something with it (paging cursors, feedback tokens).
 */
import { cursorSecretOf } from "./cursor-secret-item.js";
import { serviceSecretKey } from "./keys.js";
import { getItem } from "./table-operations.js";

let secret: Promise<Buffer> | undefined;

async function loadSecret(): Promise<Buffer> {
  const stored = cursorSecretOf(await getItem(serviceSecretKey(), { consistent: true }));
  if (stored === undefined) {
    // A deployment or setup fault, never the caller's: the secret is created with the table.
    throw new Error("The cursor-signing secret is missing from the table (created at deployment / by the table setup)");
  }
  return stored;
}

/** The deployment's secret; a failed read is retried by the next request. */
export function serviceSecret(): Promise<Buffer> {
  secret ??= loadSecret().catch((error: unknown) => {
    secret = undefined;
    throw error;
  });
  return secret;
}
