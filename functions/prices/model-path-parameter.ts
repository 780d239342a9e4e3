/**
 * The `{model}` of `/api/prices/{model}`: URL-encoded by the client (a `/` as `%2F`), decoded by API Gateway (and the
 * local server); trimmed and lower-cased here, since matching ignores case (pricing/price-lookup.ts): `GPT-X` and
 * `gpt-x` are one model's prices.
 */
import { ValidationError } from "../domain/errors.js";
import { ORGANISATION_PRICE_LIMITS as PRICE } from "../store/prices/price-limits.js";

export function modelPathParameter(parameters: Readonly<Record<string, string | undefined>>): string {
  const model = (parameters.model ?? "").trim().toLowerCase();
  if (
    model.length === 0 ||
    model.length > PRICE.modelLength ||
    !model.isWellFormed() ||
    Buffer.byteLength(model, "utf8") > PRICE.modelBytes ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    /[\u0000-\u001f\u007f]/.test(model)
  ) {
    const message = `Must be 1 to ${PRICE.modelLength} characters (at most ${PRICE.modelBytes} bytes of UTF-8), without control characters`;
    throw new ValidationError(`Invalid model in the path: ${message.toLowerCase()}`, [{ path: "model", message }]);
  }
  return model;
}
