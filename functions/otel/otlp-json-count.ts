/**
 * Counts a JSON export request as the protobuf reader counts a binary one (decode-limits.ts): each field the
 * schema names (by its OTLP JSON name) is a value, each message an element of its type, so the same excess
 * is refused in both encodings with the same message. What the schema does not name is not counted (the
 * readers ignore it); nesting is followed to MAX_DEPTH, past which the readers refuse the value anyway.
 */
import { type DecodeLimits, decodeCounter } from "./decode-limits.js";
import { MAX_DEPTH, WIRE_TYPE_OF } from "./otlp-protobuf.js";
import type { FieldSchema, MessageSchemas } from "./otlp-schema-types.js";

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Throws a DecodeLimitError when the parsed JSON `request` (a `typeName` of `schemas`) passes one of `limits`. */
export function countJsonRequest(
  request: unknown,
  schemas: MessageSchemas,
  typeName: string,
  limits: DecodeLimits,
): void {
  const counter = decodeCounter(limits);
  const fieldsOf = new Map<string, readonly FieldSchema[]>(
    Object.entries(schemas).map(([name, fields]) => [name, Object.values(fields)]),
  );
  function countMessage(message: unknown, type: string, depth: number): void {
    if (depth > MAX_DEPTH || !isObject(message)) return;
    for (const [name, kind, repeated] of fieldsOf.get(type) ?? []) {
      const value = Object.hasOwn(message, name) ? message[name] : undefined;
      if (value === undefined || value === null) continue;
      const isMessage = WIRE_TYPE_OF[kind] === undefined;
      if (repeated !== true) countValue(value, kind, isMessage, depth);
      else if (Array.isArray(value)) for (const item of value) countValue(item, kind, isMessage, depth);
    }
  }
  function countValue(value: unknown, kind: string, isMessage: boolean, depth: number): void {
    if (!isMessage) {
      counter.value();
      return;
    }
    counter.message(kind);
    countMessage(value, kind, depth + 1);
  }
  countMessage(request, typeName, 0);
}
