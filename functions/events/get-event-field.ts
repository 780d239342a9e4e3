/**
 * GET /api/sdk/sessions/{id}/events/{eventId}/{field}: one field of an event (`toolInput`, `toolOutput` as
 * their JSON, `reasoning` as text), whole, whatever its size — for the console, whose CSP lets it reach
 * only its own origin: fields over 1 MiB come back from the events route as presigned S3 URLs, which the
 * console may not fetch (issue 21). gzip-compressed when the request accepts it, so even a field near the
 * 5 MiB body limit fits Lambda's 6 MB response; too large to send uncompressed otherwise → 406.
 */
import { gzipSync } from "node:zlib";
import { NotAcceptableError, NotFoundError, ValidationError } from "../domain/errors.js";
import { isId } from "../domain/ids.js";
import { apiKeyOrUserReadRoute } from "../http/api-key-or-user-read-route.js";
import { type EventField, getEventField } from "../store/events/event-store.js";
import { getSession } from "../store/sessions/session-store.js";

const FIELDS: readonly EventField[] = ["toolInput", "toolOutput", "reasoning"];

/** The largest uncompressed answer (its body escaped as a JSON string in Lambda's response): under 6 MB. */
const UNCOMPRESSED_BUDGET_BYTES = 5_500_000;

function fieldOf(value: string | undefined): EventField {
  const field = FIELDS.find((candidate) => candidate === value);
  if (field === undefined) {
    const message = "Must be toolInput, toolOutput or reasoning";
    throw new ValidationError(`Invalid field in the path: ${FIELDS.join(", ")} are served`, [
      { path: "field", message },
    ]);
  }
  return field;
}

/** Whether an `Accept-Encoding` header accepts gzip (`gzip` or `*` without `q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? "").split(",").some((entry) => {
    const [coding = "", ...parameters] = entry.trim().toLowerCase().split(";");
    const refused = parameters.some((parameter) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(parameter));
    return (coding.trim() === "gzip" || coding.trim() === "*") && !refused;
  });
}

export const handler = apiKeyOrUserReadRoute(
  "GetEventField",
  {},
  async ({ caller, pathParameters, acceptEncoding }) => {
    const field = fieldOf(pathParameters.field);
    const session = await getSession(caller, pathParameters.id ?? "");
    const eventId = pathParameters.eventId ?? "";
    if (!isId("event", eventId)) throw new NotFoundError(`Event ${eventId} not found in session ${session.id}`);
    const text = await getEventField(session.id, eventId, field);
    const headers = {
      "content-type": field === "reasoning" ? "text/plain; charset=utf-8" : "application/json; charset=utf-8",
      vary: "accept-encoding",
    };
    if (acceptsGzip(acceptEncoding)) {
      return {
        statusCode: 200,
        headers: { ...headers, "content-encoding": "gzip" },
        body: gzipSync(text).toString("base64"),
        isBase64Encoded: true,
      };
    }
    const escapedBytes = Buffer.byteLength(JSON.stringify(text), "utf8");
    if (escapedBytes > UNCOMPRESSED_BUDGET_BYTES) {
      throw new NotAcceptableError(
        `The ${field} of event ${eventId} is ${Buffer.byteLength(text, "utf8")} bytes, too large to send uncompressed within Lambda's 6 MB response limit; send Accept-Encoding: gzip`,
      );
    }
    return { statusCode: 200, headers, body: text };
  },
);
