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

/** The numbers of the generic indexes. */
type IndexNumber = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

/** A generic index, its names known to the type checker (`GSI<n>`, `GSI<n>PK`, `GSI<n>SK`). */
export interface GenericIndex<N extends IndexNumber = IndexNumber> extends IndexDefinition {
  readonly indexName: `GSI${N}`;
  readonly partitionKey: `GSI${N}PK`;
  readonly sortKey: `GSI${N}SK`;
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

function generic<N extends IndexNumber>(n: N): GenericIndex<N> {
  return { indexName: `GSI${n}`, partitionKey: `GSI${n}PK`, sortKey: `GSI${n}SK` };
}

/**
 * The indexes by the access pattern they serve (docs/data-model.md): store
 * modules name an index through this map, never by a string literal. GSI2 is
 * overloaded: sessions by agent, and a key record by its id.
 */
export const INDEXES = {
  /** GSI1 `<tenant>#SESSIONS`: every session of a tenant, by time. */
  tenantSessions: generic(1),
  /** GSI2 `<tenant>#AGENT#<name>` (sessions by agent) and `APIKEYID#<keyId>` (a key record by id). */
  agentSessionsAndKeyIds: generic(2),
  /** GSI3 `<tenant>#USER#<userId>`: an external user's sessions, by time. */
  userSessions: generic(3),
  /** GSI4 `<tenant>#STATUS#<status>`: sessions in one status, by time. */
  statusSessions: generic(4),
  /** GSI5 the GSI4 partition, sorted by agent then time. */
  statusAgentSessions: generic(5),
  /** GSI6 the GSI3 partition, sorted by agent then time. */
  userAgentSessions: generic(6),
  /** GSI7 `<tenant>#USERSTATUS#<status>#<userId>`: one user's sessions in one status, by time. */
  userStatusSessions: generic(7),
  /** GSI8 the GSI7 partition, sorted by agent then time. */
  userStatusAgentSessions: generic(8),
} as const satisfies Readonly<Record<string, GenericIndex>>;

/** The name of one of the table's global secondary indexes (`GSI1`…`GSI8`). */
export type IndexName = (typeof INDEXES)[keyof typeof INDEXES]["indexName"];

/** Every global secondary index, in number order (what the CDK stack and the local table create). */
export const GLOBAL_INDEXES: readonly GenericIndex[] = [
  INDEXES.tenantSessions,
  INDEXES.agentSessionsAndKeyIds,
  INDEXES.userSessions,
  INDEXES.statusSessions,
  INDEXES.statusAgentSessions,
  INDEXES.userAgentSessions,
  INDEXES.userStatusSessions,
  INDEXES.userStatusAgentSessions,
];
