/**
 * The store's entity layer: each kind of item declares its `entity` tag, how
 * its key and index keys are built (always through keys.ts), what it stores,
 * and the fields a stored item must carry. `toItem` writes the tag and keys;
 * `fromItem` checks the tag and those fields and strips the storage
 * attributes, so no store module casts a raw item to a domain type.
 *
 * The check is deliberately cheap (typeof per declared field, no schema
 * library on the cold-start path): it guards against reading the wrong kind of
 * item or a damaged one, not against every malformed optional field.
 */
import type { ItemKey } from "./keys.js";

/** A raw item as the document client reads and writes it. */
export type Item = Record<string, unknown>;

/** The kinds of value a field check knows. */
export type FieldKind = "string" | "number" | "boolean" | "object" | "array";

/** Fields a stored item must carry, with their kind. Optional fields are not listed. */
export type FieldSpec = Readonly<Record<string, FieldKind>>;

/** A stored item is not what its entity declares: read from the wrong key, or damaged. */
export class ItemShapeError extends Error {
  constructor(
    readonly entity: string,
    problem: string,
  ) {
    super(`A stored ${entity} item ${problem}`);
    this.name = "ItemShapeError";
  }
}

/** What one kind of item declares. `Value` is the domain type read back, `Input` what is written. */
export interface EntityDefinition<Value, Input> {
  /** The item's `entity` attribute. */
  readonly tag: string;
  /** Fields every stored item of this kind carries, checked by `fromItem`. */
  readonly fields: FieldSpec;
  /** Storage-only attributes dropped by `fromItem`, besides PK, SK, `entity` and the GSI keys. */
  readonly storageAttributes?: readonly string[];
  /** The item's table key (from keys.ts). */
  readonly key: (input: Input) => ItemKey;
  /** The item's index keys (from keys.ts), if it is in any index. */
  readonly indexKeys?: (input: Input) => Readonly<Record<string, string>>;
  /** The attributes stored besides the keys and the tag. */
  readonly attributes: (input: Input) => Item;
  /** Turns the checked, stripped fields into the domain value (JSON text parsed, maps normalised…). */
  readonly fromFields?: (fields: Item, item: Item) => Value;
}

/** An entity: its tag, its key builder, and checked conversions to and from items. */
export interface Entity<Value, Input> {
  readonly tag: string;
  readonly key: (input: Input) => ItemKey;
  /** The full item to put: key, index keys, tag, attributes. */
  readonly toItem: (input: Input) => Item;
  /** The tag and attributes without any key: what an update that may create the item SETs (counters). */
  readonly attributesOf: (input: Input) => Item;
  /** The domain value of a stored item; throws ItemShapeError when the item is not of this entity. */
  readonly fromItem: (item: Item) => Value;
}

const GENERIC_INDEX_ATTRIBUTE = /^GSI\d+(PK|SK)$/;

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Checks that `item` is an item of `tag` carrying `fields`; an item without a tag is accepted (written by
 * hand or by a test), an item with another tag is not.
 */
export function checkItem(tag: string, fields: FieldSpec, item: Item): void {
  if (item.entity !== undefined && item.entity !== tag) {
    throw new ItemShapeError(tag, `is tagged ${JSON.stringify(item.entity)}`);
  }
  for (const [name, kind] of Object.entries(fields)) {
    const found = kindOf(item[name]);
    if (found !== kind) throw new ItemShapeError(tag, `has ${name} of type ${found}, not ${kind}`);
  }
}

/** The item without its table and index keys, its tag and the entity's storage-only attributes. */
export function stripStorage(item: Item, storageAttributes: readonly string[] = []): Item {
  const fields: Item = {};
  for (const [name, value] of Object.entries(item)) {
    if (name === "PK" || name === "SK" || name === "entity" || GENERIC_INDEX_ATTRIBUTE.test(name)) continue;
    if (storageAttributes.includes(name)) continue;
    fields[name] = value;
  }
  return fields;
}

/** Builds an entity from its declaration. */
export function defineEntity<Value, Input>(definition: EntityDefinition<Value, Input>): Entity<Value, Input> {
  const { tag, fields, storageAttributes, key, indexKeys, attributes, fromFields } = definition;
  return {
    tag,
    key,
    toItem: (input) => ({ ...key(input), ...indexKeys?.(input), entity: tag, ...attributes(input) }),
    attributesOf: (input) => ({ entity: tag, ...attributes(input) }),
    fromItem: (item) => {
      checkItem(tag, fields, item);
      const stripped = stripStorage(item, storageAttributes);
      // The declared fields were checked above; the remaining ones are the entity's own optional fields.
      return fromFields === undefined ? (stripped as Value) : fromFields(stripped, item);
    },
  };
}
