/** Request schemas of the key-management routes. */
import * as z from "zod/mini";
import { ENVIRONMENTS } from "../domain/api-key.js";
import { ROTATION_OVERLAP } from "../domain/api-key-record.js";
import { SCOPES } from "../domain/scopes.js";
import { boundedNumber, enumeration, name, optional, strictObject } from "./fields.js";

export const createApiKeyBody = strictObject({
  name: name(),
  environment: optional(enumeration(ENVIRONMENTS)),
  scopes: optional(
    z
      .array(enumeration(SCOPES), { error: `Must be an array of scopes: ${SCOPES.join(", ")}` })
      .check(
        z.minLength(1, { error: "Must name at least one scope" }),
        z.maxLength(SCOPES.length, { error: `Must have at most ${SCOPES.length} scopes` }),
      ),
  ),
});
export type CreateApiKeyBody = z.output<typeof createApiKeyBody>;

export const rotateApiKeyBody = strictObject({
  overlapSeconds: optional(boundedNumber(0, ROTATION_OVERLAP.maxSeconds, { integer: true })),
});
export type RotateApiKeyBody = z.output<typeof rotateApiKeyBody>;
