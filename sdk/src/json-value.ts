/**
 * Turns whatever an agent passes (class instances, errors, cycles, bigints,
 * Maps, lone surrogates) into plain JSON the service accepts, without losing
 * what can be kept: nothing here throws.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** The service accepts 32 levels; anything deeper is kept as a JSON string one level above. */
const MAX_DEPTH = 30;

function wellFormed(text: string): string {
  const withMethod = text as string & { toWellFormed?: () => string };
  return typeof withMethod.toWellFormed === "function" ? withMethod.toWellFormed() : text;
}

function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  // defineProperty, so a key named `__proto__` is data, not the prototype.
  Object.defineProperty(target, wellFormed(key), { value, enumerable: true, writable: true, configurable: true });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function errorToJson(error: Error, depth: number, seen: Set<object>): JsonObject {
  const out: JsonObject = {};
  setOwn(out, "name", error.name);
  setOwn(out, "message", error.message);
  if (typeof error.stack === "string") setOwn(out, "stack", error.stack);
  if (error.cause !== undefined) setOwn(out, "cause", toJsonValue(error.cause, depth + 1, seen));
  return out;
}

function depthLimited(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "[unserializable]";
  } catch {
    return "[unserializable]";
  }
}

/** `value` as JSON; `undefined` for what JSON leaves out of objects (undefined, functions, symbols). */
function toJsonValue(value: unknown, depth: number, seen: Set<object>): JsonValue {
  switch (typeof value) {
    case "string":
      return wellFormed(value);
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "boolean":
      return value;
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return null;
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) return "[circular]";
  if (depth >= MAX_DEPTH) return depthLimited(object);
  seen.add(object);
  try {
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString();
    if (object instanceof Error) return errorToJson(object, depth, seen);
    if (Array.isArray(object)) return object.map((entry) => toJsonValue(entry, depth + 1, seen));
    if (object instanceof Map) return objectToJson(Object.fromEntries(object), depth, seen);
    if (object instanceof Set) return [...object].map((entry) => toJsonValue(entry, depth + 1, seen));
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) return `[binary ${object.byteLength} bytes]`;
    const withToJson = object as { toJSON?: () => unknown };
    if (!isPlainObject(object) && typeof withToJson.toJSON === "function") {
      return toJsonValue(withToJson.toJSON(), depth, seen);
    }
    return objectToJson(object as Record<string, unknown>, depth, seen);
  } catch {
    return "[unserializable]";
  } finally {
    seen.delete(object);
  }
}

function objectToJson(object: Record<string, unknown>, depth: number, seen: Set<object>): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(object)) {
    const entry = object[key];
    if (entry === undefined || typeof entry === "function" || typeof entry === "symbol") continue;
    setOwn(out, key, toJsonValue(entry, depth + 1, seen));
  }
  return out;
}

/** Any value as a JSON object: a plain object (or class instance) as its fields, anything else as `{ value }`. */
export function toJsonObject(value: unknown): JsonObject {
  const converted = toJsonValue(value, 1, new Set());
  if (typeof converted === "object" && converted !== null && !Array.isArray(converted)) return converted;
  const out: JsonObject = {};
  setOwn(out, "value", converted);
  return out;
}

/** A string the service accepts: well-formed Unicode. */
export function toWellFormedString(value: string): string {
  return wellFormed(value);
}

/** Bytes of `text` in UTF-8, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
