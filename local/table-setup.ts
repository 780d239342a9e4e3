/**
 * Creates the table on a local endpoint from the same definition the CDK
 * stack uses (functions/store/table/table-definition.ts), if it does not exist,
 * and its cursor-signing secret (as the stack's custom resource does at
 * deployment). `npm start`, the tests' global setup, the benchmarks and the
 * load test all set their tables up here.
 */
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { ensureCursorSecret } from "../functions/store/table/cursor-secret.js";
import {
  GLOBAL_INDEXES,
  INDEX_PROJECTION,
  PARTITION_KEY,
  SORT_KEY,
  STREAM_VIEW_TYPE,
  TTL_ATTRIBUTE,
} from "../functions/store/table/table-definition.js";

export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyAttributes = [
    PARTITION_KEY,
    SORT_KEY,
    ...GLOBAL_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW_TYPE },
    AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: "S" })),
    KeySchema: [
      { AttributeName: PARTITION_KEY, KeyType: "HASH" },
      { AttributeName: SORT_KEY, KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: GLOBAL_INDEXES.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: "HASH" },
        { AttributeName: index.sortKey, KeyType: "RANGE" },
      ],
      Projection: { ProjectionType: INDEX_PROJECTION },
    })),
  };
}

/**
 * Ensures the table exists, with its cursor-signing secret (created if
 * missing, never replaced); returns whether the table had to be created.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const created = await ensureTableExists(client, tableName);
  await ensureCursorSecret(client, tableName);
  return created;
}

async function ensureTableExists(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    const described = await client.send(new DescribeTableCommand({ TableName: tableName }));
    await addMissingIndexes(client, tableName, described.Table?.GlobalSecondaryIndexes ?? []);
    if (described.Table?.StreamSpecification?.StreamEnabled !== true) {
      // A table made before counting moved to the stream.
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          StreamSpecification: { StreamEnabled: true, StreamViewType: STREAM_VIEW_TYPE },
        }),
      );
    }
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
  return true;
}

/**
 * Adds the indexes a table made by an older version lacks (one per update, as DynamoDB requires). Items
 * written before an index existed carry none of its key attributes, so they are not found through it.
 */
async function addMissingIndexes(
  client: DynamoDBClient,
  tableName: string,
  present: readonly { readonly IndexName?: string | undefined }[],
): Promise<void> {
  const names = new Set(present.map((index) => index.IndexName));
  const wanted = createTableInput(tableName);
  for (const index of wanted.GlobalSecondaryIndexes ?? []) {
    if (index.IndexName === undefined || names.has(index.IndexName)) continue;
    const keyNames = new Set((index.KeySchema ?? []).map((key) => key.AttributeName));
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: (wanted.AttributeDefinitions ?? []).filter((attribute) =>
          keyNames.has(attribute.AttributeName),
        ),
        GlobalSecondaryIndexUpdates: [
          { Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } },
        ],
      }),
    );
  }
}
