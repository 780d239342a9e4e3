/**
 * Field schemas shared by the request schemas. Each gives a clear message per
 * failure, and optional fields treat `null` as "not sent".
 *
 * Built with `zod/mini` (a fraction of full zod's bytes in every handler
 * bundle). zod/mini loads no locale: a failure whose schema names no message
 * would read just "Invalid input". The schemas that leave a message to zod
 * therefore name it here, word for word as full zod's English locale gives it.
 *
 * What a refinement checks, JSON Schema cannot see: a field built on one says it with {@link jsonSchemaOf}
 * (the OpenAPI document reads it; a few bytes, no prose, since every handler bundles these schemas).
 */
import * as z from "zod/mini";
import { ID_PREFIXES, type IdKind, idPattern } from "../domain/ids.js";
import { type JsonObject, nestingDepth } from "../domain/json.js";
import { LIMITS } from "../domain/limits.js";

type StringIssue = { code: string; input?: unknown };

/**
 * Declares the JSON Schema of a schema whose checks are refinements (zod's global registry, which
 * `z.toJSONSchema` merges into what it generates): what the refinement checks, said in JSON Schema.
 */
export function jsonSchemaOf<T extends z.ZodMiniType>(schema: T, jsonSchema: z.core.GlobalMeta): T {
  z.globalRegistry.add(schema as z.core.$ZodType, jsonSchema);
  return schema;
}

/**
 * The name zod's English locale gives the type of `input` (zod's `util.parsedType`, with NaN and the
 * infinities spelled out). Written out here: reaching `z.util` would bundle all of zod's utilities.
 */
function typeName(input: unknown): string {
  if (typeof input === "number") return Number.isFinite(input) ? "number" : String(input);
  if (input === null) return "null";
  if (Array.isArray(input)) return "array";
  if (
    typeof input === "object" &&
    Object.getPrototypeOf(input) !== Object.prototype &&
    "constructor" in input &&
    input.constructor
  ) {
    return (input.constructor as { name: string }).name;
  }
  return typeof input;
}

/** zod's English message for a value of the wrong type (for the issues a schema raises itself). */
export function wrongType(expected: string) {
  return (issue: StringIssue): string | undefined =>
    issue.code === "invalid_type"
      ? `Invalid input: expected ${expected}, received ${typeName(issue.input)}`
      : undefined;
}

const objectType = wrongType("object");

/** An object that rejects unknown keys, with zod's English messages for a non-object and for unknown keys. */
export function strictObject<const T extends z.core.$ZodLooseShape>(shape: T) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `Unrecognized key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.map((key) => `"${key}"`).join(", ")}`
        : objectType(issue),
  });
}

function textMessage(maxLength: number) {
  return (issue: StringIssue): string => {
    if (issue.input === undefined) return "Required";
    if (issue.code === "invalid_type") return "Must be a string";
    if (issue.code === "too_small") return "Must not be empty";
    if (issue.code === "too_big") return `Must be at most ${maxLength} characters`;
    return "Invalid text";
  };
}

/** A non-empty string of at most `maxLength` characters of well-formed Unicode. */
export function text(maxLength: number) {
  const error = textMessage(maxLength);
  return z.string({ error }).check(
    z.minLength(1, { error }),
    z.maxLength(maxLength, { error }),
    z.refine((value) => value.isWellFormed(), { error: "Must be valid Unicode text (no lone surrogates)" }),
  );
}

/**
 * An identifier-like name (agent name, user id, tool name, …): {@link text} of at most
 * `LIMITS.nameLength` characters and at most `LIMITS.nameBytes` bytes of UTF-8, since names become
 * parts of DynamoDB keys.
 */
export function name() {
  return text(LIMITS.nameLength).check(
    z.refine((value) => Buffer.byteLength(value, "utf8") <= LIMITS.nameBytes, {
      error: `Must be at most ${LIMITS.nameBytes} bytes as UTF-8`,
    }),
  );
}

/**
 * A client's timestamp: ISO 8601 with any offset, passed on as UTC ISO with `Z` and milliseconds. Whether it is
 * too far ahead or older than the retention depends on the caller's organisation: the store checks that.
 */
export function isoTimestamp() {
  return z.pipe(
    z.iso.datetime({ offset: true, error: "Must be an ISO 8601 timestamp, e.g. 2026-11-22T10:00:00Z" }),
    z.transform((value: string) => new Date(value).toISOString()),
  );
}

/** An id in the service's own format for `kind`: its prefix, `_`, and a ULID (26 upper-case Crockford base32 characters). */
export function serviceId(kind: IdKind) {
  const shape = `Must be "${ID_PREFIXES[kind]}_" followed by a ULID (26 characters of Crockford base32, upper case)`;
  return z
    .string({ error: (issue) => (issue.input === undefined ? "Required" : "Must be a string") })
    .check(z.regex(idPattern(kind), { error: shape }));
}

/** `schema`, or absent: `undefined` and `null` both mean "not sent". */
export function optional<T extends z.ZodMiniType>(schema: T) {
  return z.pipe(
    z.nullish(schema),
    z.transform((value: z.output<T> | null | undefined) => value ?? undefined),
  );
}

export function boolean() {
  return z.boolean({
    error: (issue) => (issue.input === undefined ? "Required" : "Must be true or false"),
  });
}

/** A finite number in [min, max] that DynamoDB can store (no denormal magnitudes). */
export function boundedNumber(min: number, max: number, options: { integer?: boolean } = {}) {
  const kind = options.integer ? "an integer" : "a number";
  const message = `Must be ${kind} from ${min} to ${max}`;
  const number = z.number({ error: message }).check(
    z.gte(min, { error: message }),
    z.lte(max, { error: message }),
    z.refine((value) => !options.integer || Number.isInteger(value), { error: message }),
    z.refine((value) => options.integer || value === 0 || Math.abs(value) >= LIMITS.smallestNonZero, {
      error: `Must be 0 or at least ${LIMITS.smallestNonZero} in magnitude`,
    }),
  );
  return options.integer ? jsonSchemaOf(number, { type: "integer" }) : number;
}

export function enumeration<const T extends readonly [string, ...string[]]>(values: T) {
  const message = `Must be one of: ${values.join(", ")}`;
  return z.enum(values, { error: (issue) => (issue.input === undefined ? "Required" : message) });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A JSON object (not an array, string or null) of bounded depth and serialized
 * size. The object is passed on as sent: no copy, so keys such as `__proto__`
 * survive as data.
 */
export function jsonObject(maxBytes: number) {
  const schema = z.pipe(
    z.unknown().check(
      z.superRefine((value, context) => {
        if (!isPlainObject(value)) {
          context.addIssue({ code: "custom", message: "Must be a JSON object" });
          return;
        }
        if (nestingDepth(value, LIMITS.jsonDepth) > LIMITS.jsonDepth) {
          context.addIssue({ code: "custom", message: `Must nest at most ${LIMITS.jsonDepth} levels deep` });
          return;
        }
        if (Buffer.byteLength(JSON.stringify(value), "utf8") > maxBytes) {
          context.addIssue({ code: "custom", message: `Must be at most ${maxBytes} bytes as JSON` });
        }
      }),
    ),
    z.transform((value) => value as JsonObject),
  );
  return jsonSchemaOf(schema, {
    type: "object",
    description: `Any JSON object: at most ${maxBytes} bytes serialized, at most ${LIMITS.jsonDepth} levels deep.`,
  });
}

/** Metric name → finite number (stored as JSON text, so any finite number round-trips). */
export function metricMap() {
  const schema = z.pipe(
    z.unknown().check(
      z.superRefine((value, context) => {
        if (!isPlainObject(value)) {
          context.addIssue({ code: "custom", message: "Must be a JSON object of metric name to number" });
          return;
        }
        const entries = Object.entries(value);
        if (entries.length > LIMITS.customMetricCount) {
          context.addIssue({ code: "custom", message: `Must have at most ${LIMITS.customMetricCount} metrics` });
        }
        for (const [name, metric] of entries) {
          if (name.length === 0 || name.length > LIMITS.metricNameLength || !name.isWellFormed()) {
            context.addIssue({
              code: "custom",
              path: [name],
              message: `Metric names must be 1 to ${LIMITS.metricNameLength} characters`,
            });
          } else if (typeof metric !== "number" || !Number.isFinite(metric)) {
            context.addIssue({ code: "custom", path: [name], message: "Must be a finite number" });
          }
        }
      }),
    ),
    z.transform((value) => value as Record<string, number>),
  );
  return jsonSchemaOf(schema, {
    type: "object",
    maxProperties: LIMITS.customMetricCount,
    propertyNames: { minLength: 1, maxLength: LIMITS.metricNameLength },
    additionalProperties: { type: "number" },
  });
}
