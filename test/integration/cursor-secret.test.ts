/**
 * The cursor-signing secret is created before any request needs it, never by
 * a request: at deployment by the `Custom::CursorSecret` resource's function
 * (functions/deploy/cursor-secret-resource.ts), locally by the table setup
 * (local/table-setup.ts). Both run here against DynamoDB Local, on tables of
 * their own; CloudFormation's side is a local HTTP server taking the PUT of
 * the outcome to the presigned response URL.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CreateTableCommand, DeleteTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import type { CloudFormationCustomResourceEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handler } from "../../functions/deploy/cursor-secret-resource.js";
import { documentClient } from "../../functions/store/table/dynamo-client.js";
import { serviceSecretKey } from "../../functions/store/table/keys.js";
import { createTableInput, ensureTable } from "../../local/table-setup.js";

interface Received {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Record<string, unknown>;
}

let server: Server;
let responseUrl: string;
const received: Received[] = [];
const tables: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  responseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/response?signature=presigned`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  for (const table of tables) await documentClient.send(new DeleteTableCommand({ TableName: table }));
});

/** The service's client (whatever credentials the local stack needs) as the low-level client type. */
const adminClient = documentClient as unknown as DynamoDBClient;

async function freshTable(): Promise<string> {
  const name = `ats-cursor-${randomUUID().slice(0, 8)}`;
  await documentClient.send(new CreateTableCommand(createTableInput(name)));
  tables.push(name);
  return name;
}

async function storedSecret(table: string): Promise<unknown> {
  const result = await documentClient.send(
    new GetCommand({ TableName: table, Key: serviceSecretKey(), ConsistentRead: true }),
  );
  return result.Item?.secret;
}

function cloudFormationEvent(
  requestType: "Create" | "Update" | "Delete",
  tableName: string,
): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: "arn:aws:lambda:us-east-1:000000000000:function:CursorSecretSetup",
    ResponseURL: responseUrl,
    StackId: "arn:aws:cloudformation:us-east-1:000000000000:stack/AgentTracking/1",
    RequestId: randomUUID(),
    LogicalResourceId: "CursorSecret",
    ResourceType: "Custom::CursorSecret",
    ResourceProperties: { ServiceToken: "token", TableName: tableName },
  };
  if (requestType === "Create") return { ...common, RequestType: "Create" };
  const physical = { PhysicalResourceId: "cursor-secret" };
  if (requestType === "Update") {
    return { ...common, ...physical, RequestType: "Update", OldResourceProperties: common.ResourceProperties };
  }
  return { ...common, ...physical, RequestType: "Delete" };
}

describe("the Custom::CursorSecret resource (deployment)", () => {
  it("creates a 32-byte secret on Create, keeps it on Update and Delete, and answers CloudFormation SUCCESS each time", async () => {
    // Prepare
    const table = await freshTable();
    received.splice(0);

    // Act
    const created = await handler(cloudFormationEvent("Create", table));
    const secret = await storedSecret(table);
    const updated = await handler(cloudFormationEvent("Update", table));
    const deleted = await handler(cloudFormationEvent("Delete", table));

    // Assess
    expect(typeof secret).toBe("string");
    expect(Buffer.from(String(secret), "base64")).toHaveLength(32);
    expect(await storedSecret(table)).toBe(secret);
    expect([created.Data.Created, updated.Data.Created, deleted.Data.Created]).toEqual(["true", "false", "false"]);
    expect(received.map((response) => response.body.Status)).toEqual(["SUCCESS", "SUCCESS", "SUCCESS"]);
    expect(received[0]?.body).toMatchObject({
      PhysicalResourceId: "cursor-secret",
      LogicalResourceId: "CursorSecret",
      StackId: expect.stringContaining("stack/AgentTracking"),
      RequestId: expect.any(String),
    });
    // The presigned URL is signed without a content type: none may be sent.
    expect(received[0]?.headers["content-type"] ?? "").toBe("");
    // The secret never leaves the table: not in the answer CloudFormation keeps.
    expect(JSON.stringify(received)).not.toContain(String(secret));
  });

  it("answers FAILED with the reason (never leaves CloudFormation waiting) when the table does not exist", async () => {
    // Prepare
    received.splice(0);

    // Act
    const outcome = await handler(cloudFormationEvent("Create", `ats-missing-${randomUUID().slice(0, 8)}`));

    // Assess
    expect(outcome.Status).toBe("FAILED");
    expect(received).toHaveLength(1);
    expect(received[0]?.body.Status).toBe("FAILED");
    expect(String(received[0]?.body.Reason)).toMatch(/ResourceNotFoundException/);
  });
});

describe("the local table setup (npm start, tests, benchmarks)", () => {
  it("creates the secret with the table, and keeps it when run again", async () => {
    // Prepare
    const table = `ats-cursor-${randomUUID().slice(0, 8)}`;
    tables.push(table);

    // Act
    await ensureTable(adminClient, table);
    const first = await storedSecret(table);
    await ensureTable(adminClient, table);

    // Assess
    expect(Buffer.from(String(first), "base64")).toHaveLength(32);
    expect(await storedSecret(table)).toBe(first);
  });
});
