/**
 * The one definition of the single table's physical shape: key attributes,
 * global secondary indexes and the TTL attribute. The CDK stack, the local
 * table bootstrap and the tests all build the table from this module.
 * The access patterns each index serves are listed in docs/data-model.md.
 */

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

export const PARTITION_KEY = "PK";
export const SORT_KEY = "SK";

/**
 * The table's change stream: the stream consumer (functions/stream/) counts
 * events and session starts and ends from it, so it needs both images (a
 * session's end is a MODIFY from `active`).
 */
export const STREAM_VIEW_TYPE = "NEW_AND_OLD_IMAGES";

/** Epoch-seconds attribute DynamoDB TTL deletes expired items by. */
export const TTL_ATTRIBUTE = "ttl";

/**
 * Generic, overloaded indexes. Which entity writes which index is decided in
 * `keys.ts`.
 *
 * They project keys only (`KEYS_ONLY`): an update of a non-key attribute never
 * writes to an index, so the hot path (an event bumping its session's
 * counters) costs no index writes at all. Readers query an index for keys and
 * fetch the items themselves (BatchGetItem).
 */
export const INDEX_PROJECTION = "KEYS_ONLY";

export const GLOBAL_INDEXES: readonly IndexDefinition[] = [
  { indexName: "GSI1", partitionKey: "GSI1PK", sortKey: "GSI1SK" },
  { indexName: "GSI2", partitionKey: "GSI2PK", sortKey: "GSI2SK" },
  { indexName: "GSI3", partitionKey: "GSI3PK", sortKey: "GSI3SK" },
  { indexName: "GSI4", partitionKey: "GSI4PK", sortKey: "GSI4SK" },
  { indexName: "GSI5", partitionKey: "GSI5PK", sortKey: "GSI5SK" },
  { indexName: "GSI6", partitionKey: "GSI6PK", sortKey: "GSI6SK" },
  { indexName: "GSI7", partitionKey: "GSI7PK", sortKey: "GSI7SK" },
  { indexName: "GSI8", partitionKey: "GSI8PK", sortKey: "GSI8SK" },
];
