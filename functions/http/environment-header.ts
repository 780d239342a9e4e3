/** `X-Environment`: the environment a signed-in user acts in, `live` unless it says `test` (anything else is 400). */
import { ENVIRONMENTS, type Environment } from "../domain/api-key.js";
import { ValidationError } from "../domain/errors.js";

export function environmentOfHeader(header: string | undefined): Environment {
  if (header === undefined) return "live";
  const environment = ENVIRONMENTS.find((candidate) => candidate === header);
  if (environment === undefined) {
    throw new ValidationError(`Invalid X-Environment header: must be ${ENVIRONMENTS.join(" or ")}`, [
      { path: "X-Environment", message: `Must be ${ENVIRONMENTS.join(" or ")}` },
    ]);
  }
  return environment;
}
