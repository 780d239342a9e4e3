/** The shape of the pre-compiled OTLP schema (functions/otel/generated/otlp-trace-schema.ts). */

/** A scalar protobuf type, `enum`, or `message:<full name>`. */
export type FieldKind = string;

export interface FieldSchema {
  readonly name: string;
  readonly kind: FieldKind;
  readonly repeated?: true;
}

/** Fields of each message by full name, then by field number. */
export type MessageSchemas = Readonly<Record<string, Readonly<Record<number, FieldSchema>>>>;
