/**
 * The `{name}` of `/api/sdk/score-configs/{name}`: a score name as scores carry it (1 to LIMITS.scoreNameLength
 * characters, exact: names are case-sensitive), URL-encoded by the client and decoded by API Gateway (and the local
 * server). A 400 naming the path parameter otherwise.
 */
import { ValidationError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";

export function scoreNameParameter(parameters: Readonly<Record<string, string | undefined>>): string {
  const name = parameters.name ?? "";
  const characters = [...name].length;
  if (characters < 1 || characters > LIMITS.scoreNameLength || !name.isWellFormed()) {
    const message = `Must be a score name of 1 to ${LIMITS.scoreNameLength} characters`;
    throw new ValidationError(`Invalid score name in the path: ${message.toLowerCase()}`, [{ path: "name", message }]);
  }
  return name;
}
