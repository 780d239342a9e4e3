/**
 * The single-item operations every store module shares, on the service's
 * table: reads, put-if-absent, updates built from an allow-list, transactions,
 * paged queries, and telling a failed condition from any other failure. Each
 * sends exactly the one request it names (no reads added): the round trips of
 * a path are those of its store calls.
 */
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { conditionFailureItem, isConditionFailure } from "./condition-failure.js";
import { documentClient, tableName } from "./dynamo-client.js";
import type { Item } from "./entity.js";
import type { ItemKey } from "./keys.js";
import type { IndexDefinition } from "./table-definition.js";
import { buildUpdate, type UpdateChanges } from "./update-expression.js";

/** The condition creates carry: no item under the key yet. */
export const ABSENT = "attribute_not_exists(PK)";
/** The condition updates carry: the item exists (an update never creates one). */
export const EXISTS = "attribute_exists(PK)";

/** Reads one item; strongly consistent unless `consistent: false`. `projection` names top-level attributes. */
export async function getItem(
  key: ItemKey,
  options: { readonly consistent?: boolean; readonly projection?: readonly string[] } = {},
): Promise<Item | undefined> {
  const projection = options.projection;
  const result = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: { PK: key.PK, SK: key.SK },
      ConsistentRead: options.consistent ?? true,
      ...(projection === undefined
        ? {}
        : {
            ProjectionExpression: projection.map((name) => `#${name}`).join(", "),
            ExpressionAttributeNames: Object.fromEntries(projection.map((name) => [`#${name}`, name])),
          }),
    }),
  );
  return result.Item;
}

/** Deletes one item (unconditionally: deleting an absent item is no error). */
export async function deleteItem(key: ItemKey): Promise<void> {
  await documentClient.send(new DeleteCommand({ TableName: tableName, Key: { PK: key.PK, SK: key.SK } }));
}

/**
 * Deletes one item if it exists and meets `condition` (one conditional DeleteItem); resolves with whether it
 * was deleted (false: absent, or the condition failed).
 */
export async function deleteIfExists(key: ItemKey, condition?: Condition): Promise<boolean> {
  try {
    await documentClient.send(
      new DeleteCommand({
        TableName: tableName,
        Key: { PK: key.PK, SK: key.SK },
        ConditionExpression: condition === undefined ? EXISTS : `${EXISTS} AND (${condition.expression})`,
        ...(condition?.names === undefined ? {} : { ExpressionAttributeNames: condition.names }),
        ...(condition?.values === undefined ? {} : { ExpressionAttributeValues: condition.values }),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The outcome of putIfAbsent: written, or the key was taken (with the item found when asked for). */
export type PutIfAbsentResult =
  | { readonly written: true }
  | { readonly written: false; readonly existing: Item | undefined };

/**
 * Puts `item` unless an item with its key exists (one conditional PutItem). With `returnExisting`, a taken
 * key comes back with the stored item (`ReturnValuesOnConditionCheckFailure: ALL_OLD`): no second read.
 */
export async function putIfAbsent(
  item: Item,
  options: { readonly returnExisting?: boolean } = {},
): Promise<PutIfAbsentResult> {
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: item,
        ConditionExpression: ABSENT,
        ...(options.returnExisting === true ? { ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const } : {}),
      }),
    );
    return { written: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { written: false, existing: conditionFailureItem(error) };
  }
}

/** A further condition of an update, with its own placeholders. */
export interface Condition {
  readonly expression: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, unknown>>;
}

/** How an update is built: which attributes it may write, and what it requires of the item. */
export interface UpdateOptions {
  /** The only attributes `changes` may name (DisallowedAttributeError otherwise). */
  readonly allowed: readonly string[];
  /** ANDed to `attribute_exists(PK)` (or alone with `mayCreate`). */
  readonly condition?: Condition;
  /** Leave out `attribute_exists(PK)`: the update may create the item (counters). */
  readonly mayCreate?: boolean;
}

/** The key, expressions and condition of an update (for UpdateItem or a transaction's Update). */
export function updateRequest(key: ItemKey, changes: UpdateChanges, options: UpdateOptions) {
  const parts = buildUpdate(changes, options.allowed);
  const conditions = [
    ...(options.mayCreate === true ? [] : [EXISTS]),
    ...(options.condition === undefined ? [] : [`(${options.condition.expression})`]),
  ];
  const names = { ...parts.ExpressionAttributeNames, ...options.condition?.names };
  return {
    Key: { PK: key.PK, SK: key.SK },
    UpdateExpression: parts.UpdateExpression,
    ...(conditions.length === 0 ? {} : { ConditionExpression: conditions.join(" AND ") }),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ...parts.ExpressionAttributeValues, ...options.condition?.values },
  };
}

/**
 * Updates an existing item (`attribute_exists(PK)` and `options.condition`), writing only allow-listed
 * attributes. Throws ConditionalCheckFailedException as DynamoDB does (see isConditionFailure,
 * conditionFailureItem); resolves with the attributes `returnValues` asks for.
 */
export async function updateIfExists(
  key: ItemKey,
  changes: UpdateChanges,
  options: UpdateOptions & {
    readonly returnValues?: "ALL_NEW" | "UPDATED_NEW";
    readonly returnExistingOnFailure?: boolean;
  },
): Promise<Item | undefined> {
  const result = await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      ...updateRequest(key, changes, options),
      ...(options.returnValues === undefined ? {} : { ReturnValues: options.returnValues }),
      ...(options.returnExistingOnFailure === true ? { ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const } : {}),
    }),
  );
  return result.Attributes;
}

/**
 * An UpdateItem whose expression the allow-list builder cannot say (`if_not_exists`, `list_append`, a
 * conditional counter): written out in the store module that owns the item, sent here.
 */
export async function updateItem(request: Omit<UpdateCommandInput, "TableName">): Promise<Item | undefined> {
  const result = await documentClient.send(new UpdateCommand({ TableName: tableName, ...request }));
  return result.Attributes;
}

type FullTransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];
type WithoutTable<T> = Omit<NonNullable<T>, "TableName"> & { readonly TableName?: string };

/** A transaction item on the service's table (its TableName is filled in by `transact`). */
export interface TransactItem {
  readonly Put?: WithoutTable<FullTransactItem["Put"]>;
  readonly Update?: WithoutTable<FullTransactItem["Update"]>;
  readonly Delete?: WithoutTable<FullTransactItem["Delete"]>;
  readonly ConditionCheck?: WithoutTable<FullTransactItem["ConditionCheck"]>;
}

/** A transaction's Put of a new item (`attribute_not_exists(PK)`). */
export function putIfAbsentItem(item: Item): TransactItem {
  return { Put: { Item: item, ConditionExpression: ABSENT } };
}

/** A transaction's unconditional Put. */
export function putItem(item: Item): TransactItem {
  return { Put: { Item: item } };
}

/** A transaction's check that an item exists. */
export function existsCheck(key: ItemKey): TransactItem {
  return { ConditionCheck: { Key: { PK: key.PK, SK: key.SK }, ConditionExpression: EXISTS } };
}

function onTable<T extends object>(part: T | undefined): (T & { TableName: string }) | undefined {
  return part === undefined ? undefined : { ...part, TableName: tableName };
}

/** Writes `items` in one TransactWriteItems (all or nothing); a cancellation is thrown as DynamoDB throws it. */
export async function transact(items: readonly TransactItem[]): Promise<void> {
  const transactItems: FullTransactItem[] = items.map((item) => {
    const full: FullTransactItem = {};
    const put = onTable(item.Put);
    const update = onTable(item.Update);
    const remove = onTable(item.Delete);
    const check = onTable(item.ConditionCheck);
    if (put !== undefined) full.Put = put;
    if (update !== undefined) full.Update = update;
    if (remove !== undefined) full.Delete = remove;
    if (check !== undefined) full.ConditionCheck = check;
    return full;
  });
  await documentClient.send(new TransactWriteCommand({ TransactItems: transactItems }));
}

/** A Query of the table or of one of its indexes (from table-definition.ts INDEXES). */
export type QueryRequest = Omit<QueryCommandInput, "TableName" | "IndexName" | "ExclusiveStartKey"> & {
  readonly index?: IndexDefinition;
  readonly startKey?: Item | undefined;
};

/** One page of a query and where the next starts (undefined: the last page). */
export interface QueryPage {
  readonly items: Item[];
  readonly lastKey: Item | undefined;
}

/** One Query request: a page of up to `Limit` items (and at most 1 MB). */
export async function queryPage(request: QueryRequest): Promise<QueryPage> {
  const { index, startKey, ...input } = request;
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      ...(index === undefined ? {} : { IndexName: index.indexName }),
      ...input,
      ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
    }),
  );
  return { items: result.Items ?? [], lastKey: result.LastEvaluatedKey };
}

/** Every page of a query, in order, until DynamoDB reports no further key. */
export async function* queryPages(request: QueryRequest): AsyncGenerator<QueryPage> {
  let startKey = request.startKey;
  do {
    const page = await queryPage({ ...request, startKey });
    yield page;
    startKey = page.lastKey;
  } while (startKey !== undefined);
}

/** Every item a query matches (paging until the last page), or its first `limit` items. */
export async function queryAll(request: QueryRequest, options: { readonly limit?: number } = {}): Promise<Item[]> {
  const { limit } = options;
  const items: Item[] = [];
  let startKey = request.startKey;
  do {
    const remaining = limit === undefined ? undefined : limit - items.length;
    const pageLimit = remaining === undefined ? request.Limit : Math.min(remaining, request.Limit ?? remaining);
    const page = await queryPage({ ...request, startKey, ...(pageLimit === undefined ? {} : { Limit: pageLimit }) });
    items.push(...page.items);
    startKey = page.lastKey;
  } while (startKey !== undefined && (limit === undefined || items.length < limit));
  return items;
}

/** The key of an item (PK and SK as strings), as a query of keys returns it. */
export function keyOf(item: Item): ItemKey {
  return { PK: String(item.PK), SK: String(item.SK) };
}
