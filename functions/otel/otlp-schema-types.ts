/** The shape of the pre-compiled OTLP schemas (functions/otel/generated/). */

/** A scalar protobuf type or `enum` (lower case), or a message's name (capitalised). */
export type FieldKind = string;

/** A field: its OTLP JSON name, its kind, and whether it is repeated. */
export type FieldSchema = readonly [name: string, kind: FieldKind, repeated?: boolean];

/** Fields of each message by name (without its package), then by field number. */
export type MessageSchemas = Readonly<Record<string, Readonly<Record<number, FieldSchema>>>>;
