/**
 * Records every item the service's DynamoDB client touches, read from each
 * command's input as it is sent (what IAM authorises): the action as IAM names it
 * (a transaction's Put is `dynamodb:PutItem` on that item), the partition key
 * (`dynamodb:LeadingKeys`: the item's PK, or the index partition key of a
 * Query on an index), the index, and the attribute names the request uses.
 * {@link deniedAccesses} then checks them against a route's table grants the
 * way IAM would.
 */
import type { TableGrant } from "../../functions/routes.js";
import { documentClient } from "../../functions/store/table/dynamo-client.js";
import { GLOBAL_INDEXES, PARTITION_KEY } from "../../functions/store/table/table-definition.js";

export interface TableAccess {
  readonly action: string;
  /** The leading key IAM checks; undefined when the request has none (a Scan). */
  readonly partition: string | undefined;
  readonly index?: string;
  /** Attribute names used by the request (key, update and condition expressions). */
  readonly attributes: readonly string[];
  readonly returnValues?: string;
}

/** A key value: plain (document client input) or marshalled (`{ S: … }`). */
type AttributeValue = string | { S?: string };
type Item = Record<string, AttributeValue>;
interface ItemRequest {
  Key?: Item;
  Item?: Item;
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ReturnValues?: string;
}

function text(value: AttributeValue | undefined): string | undefined {
  return typeof value === "string" ? value : value?.S;
}

const EXPRESSION_WORDS = new Set([
  "SET",
  "ADD",
  "REMOVE",
  "DELETE",
  "AND",
  "OR",
  "NOT",
  "BETWEEN",
  "IN",
  "attribute_exists",
  "attribute_not_exists",
  "attribute_type",
  "begins_with",
  "contains",
  "size",
  "if_not_exists",
  "list_append",
]);

/** Top-level attribute names of an expression (`#name` resolved, `:values` skipped). */
function expressionAttributes(expression: string | undefined, names: Record<string, string> = {}): string[] {
  if (expression === undefined) return [];
  const found: string[] = [];
  for (const match of expression.matchAll(/(?<![:\w#.])(#?[A-Za-z_][A-Za-z0-9_]*)/g)) {
    const token = match[1] ?? "";
    if (EXPRESSION_WORDS.has(token)) continue;
    found.push(token.startsWith("#") ? (names[token] ?? token) : token);
  }
  return found;
}

function itemAccess(action: string, request: ItemRequest): TableAccess {
  const key = request.Key ?? request.Item ?? {};
  const names = request.ExpressionAttributeNames ?? {};
  const attributes = new Set([
    ...Object.keys(request.Key ?? {}),
    ...expressionAttributes(request.UpdateExpression, names),
    ...expressionAttributes(request.ConditionExpression, names),
    ...(request.Item === undefined ? [] : Object.keys(request.Item)),
  ]);
  return {
    action,
    partition: text(key[PARTITION_KEY]),
    attributes: [...attributes],
    ...(request.ReturnValues === undefined ? {} : { returnValues: request.ReturnValues }),
  };
}

function queryAccess(request: {
  IndexName?: string;
  KeyConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
}): TableAccess {
  const partitionAttribute =
    request.IndexName === undefined
      ? PARTITION_KEY
      : GLOBAL_INDEXES.find((index) => index.indexName === request.IndexName)?.partitionKey;
  let partition: string | undefined;
  for (const match of (request.KeyConditionExpression ?? "").matchAll(/(#?\w+)\s*=\s*(:\w+)/g)) {
    const name = match[1]?.startsWith("#") ? request.ExpressionAttributeNames?.[match[1]] : match[1];
    if (name === partitionAttribute) partition = text(request.ExpressionAttributeValues?.[match[2] ?? ""]);
  }
  return {
    action: "dynamodb:Query",
    partition,
    ...(request.IndexName === undefined ? {} : { index: request.IndexName }),
    attributes: [],
  };
}

/** The accesses of one serialised DynamoDB request. */
export function accessesOf(operation: string, body: Record<string, unknown>): TableAccess[] {
  switch (operation) {
    case "GetItem":
    case "PutItem":
    case "UpdateItem":
    case "DeleteItem":
      return [itemAccess(`dynamodb:${operation}`, body as ItemRequest)];
    case "Query":
      return [queryAccess(body as Parameters<typeof queryAccess>[0])];
    case "TransactWriteItems": {
      const items = (body.TransactItems ?? []) as Record<string, ItemRequest>[];
      return items.flatMap((item) => {
        if (item.Put) return [itemAccess("dynamodb:PutItem", item.Put)];
        if (item.Update) return [itemAccess("dynamodb:UpdateItem", item.Update)];
        if (item.Delete) return [itemAccess("dynamodb:DeleteItem", item.Delete)];
        if (item.ConditionCheck) return [itemAccess("dynamodb:ConditionCheckItem", item.ConditionCheck)];
        return [];
      });
    }
    case "TransactGetItems":
      return ((body.TransactItems ?? []) as { Get: ItemRequest }[]).map((item) =>
        itemAccess("dynamodb:GetItem", item.Get),
      );
    case "BatchGetItem":
      return Object.values((body.RequestItems ?? {}) as Record<string, { Keys: Item[] }>).flatMap((table) =>
        table.Keys.map((key) => itemAccess("dynamodb:BatchGetItem", { Key: key })),
      );
    case "BatchWriteItem":
      return Object.values(
        (body.RequestItems ?? {}) as Record<string, { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]>,
      ).flatMap((requests) =>
        requests.map((request) =>
          itemAccess("dynamodb:BatchWriteItem", request.PutRequest ?? { Key: request.DeleteRequest?.Key ?? {} }),
        ),
      );
    default:
      return [{ action: `dynamodb:${operation}`, partition: undefined, attributes: [] }];
  }
}

/**
 * The DynamoDB operation of a command passing through the client's stack.
 * The document client's item commands (`GetCommand`, …) hand their input to
 * the low-level ones (`GetItemCommand`, …) on the same stack: only the latter
 * are recorded, so nothing is counted twice. Both Query commands share one
 * name and are both recorded (a duplicate changes no check).
 */
function operationOf(commandName: string): string | undefined {
  const operation = commandName.replace(/Command$/, "");
  if (/Items?$/.test(operation) || operation === "Query" || operation === "Scan") return operation;
  return undefined;
}

const recorded: TableAccess[] = [];
let installed = false;

/** Installs the recorder on the service's document client (once per test file). */
export function recordTableAccesses(): { accesses: () => readonly TableAccess[]; reset: () => void } {
  if (!installed) {
    documentClient.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        const operation = operationOf(String(context.commandName));
        if (operation !== undefined) recorded.push(...accessesOf(operation, input));
        return next(args);
      },
      { step: "initialize", name: "atsTestTableAccessRecorder" },
    );
    installed = true;
  }
  return { accesses: () => [...recorded], reset: () => void recorded.splice(0) };
}

/** An IAM `StringLike` pattern as a regular expression (`*` any run, `?` one character). */
function likePattern(pattern: string): RegExp {
  const source = pattern
    .split("")
    .map((character) =>
      character === "*" ? ".*" : character === "?" ? "." : character.replace(/[.+^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${source}$`, "s");
}

const RESTRICTED_RETURN_VALUES = new Set(["NONE", "UPDATED_OLD", "UPDATED_NEW"]);

/** Whether one grant allows one access, as the stack's IAM statement would. */
export function grantAllows(grant: TableGrant, access: TableAccess): boolean {
  if (!(grant.actions as readonly string[]).includes(access.action)) return false;
  if (access.partition === undefined) return false;
  if ((grant.indexes ?? []).length === 0 ? access.index !== undefined : !grant.indexes?.includes(access.index as never))
    return false;
  if (!grant.partitions.some((pattern) => likePattern(pattern).test(access.partition ?? ""))) return false;
  if (grant.attributes !== undefined) {
    if (!access.attributes.every((attribute) => grant.attributes?.includes(attribute))) return false;
    if (access.returnValues !== undefined && !RESTRICTED_RETURN_VALUES.has(access.returnValues)) return false;
  }
  return true;
}

/** The accesses no grant allows (each once), as readable strings. */
export function deniedAccesses(grants: readonly TableGrant[], accesses: readonly TableAccess[]): string[] {
  const denied = accesses
    .filter((access) => !grants.some((grant) => grantAllows(grant, access)))
    .map(
      (access) =>
        `${access.action} ${access.index === undefined ? "" : `index ${access.index} `}partition ${access.partition ?? "(none)"} attributes [${access.attributes.join(", ")}]`,
    );
  return [...new Set(denied)];
}
