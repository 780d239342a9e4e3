/** Path parameters that name things (agent names, external user ids) follow the same rules as in bodies. */
import { ValidationError } from "../domain/errors.js";
import { LIMITS } from "../domain/limits.js";

export function namePathParameter(parameters: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = parameters[name] ?? "";
  if (value.length === 0 || value.length > LIMITS.nameLength || !value.isWellFormed()) {
    const message = `Must be 1 to ${LIMITS.nameLength} characters`;
    throw new ValidationError(`Invalid ${name} in the path: ${message.toLowerCase()}`, [{ path: name, message }]);
  }
  return value;
}
