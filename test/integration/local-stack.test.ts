/**
 * `npm start` and `npm run keys` as a newcomer runs them: real processes,
 * real HTTP, DynamoDB Local persisted under DATA_DIR.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DescribeTableCommand, DescribeTimeToLiveCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, inject, it } from "vitest";
import { routes } from "../../functions/routes.js";
import { GLOBAL_INDEXES, TTL_ATTRIBUTE } from "../../functions/store/table/table-definition.js";
import { createLocalDynamoClient } from "../../local/dynamo-endpoint.js";
import { startLocalApi } from "../../local/http-adapter.js";
import { configureLocalIssuer, LocalIdentity } from "../../local/local-identity.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { settleCounts } from "../support/fixtures.js";
import { exited, isAlive, runTool, startTool, waitForFile } from "../support/processes.js";

const dataDirectories: string[] = [];
const children: ChildProcess[] = [];
function start(env: Record<string, string>, args: readonly string[] = []) {
  const started = startTool("local/start.ts", env, args);
  children.push(started.child);
  return started;
}
function freshDataDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "ats-local-"));
  dataDirectories.push(directory);
  return directory;
}
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const directory of dataDirectories) rmSync(directory, { recursive: true, force: true });
});

interface LocalJson {
  apiUrl: string;
  apiKey: string;
  userToken: string;
  dynamodbEndpoint: string;
  tableName: string;
}

async function createSession(local: LocalJson): Promise<Response> {
  return fetch(`${local.apiUrl}/api/sdk/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${local.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "smoke", agentName: "cli", userId: "me" }),
  });
}

function dynamoPidsOf(parentPid: number): number[] {
  const directory = join(tmpdir(), "ats-dynamodb-local");
  return readdirSync(directory)
    .filter((file) => file.endsWith(".json"))
    .map((file) => JSON.parse(readFileSync(join(directory, file), "utf8")) as { pid: number; parentPid: number })
    .filter((entry) => entry.parentPid === parentPid)
    .map((entry) => entry.pid);
}

describe("npm start", () => {
  it("starts DynamoDB Local under DATA_DIR, serves the API, persists data and shuts down cleanly", async () => {
    const dataDirectory = freshDataDirectory();
    const env = { DATA_DIR: dataDirectory, PORT: "0", DYNAMODB_ENDPOINT: "", TABLE_NAME: "", LOG_LEVEL: "" };

    // First start: creates the table, the dev organisation and a key shown in the banner.
    const first = start(env);
    const local = JSON.parse(await waitForFile(join(dataDirectory, "local.json"), 60_000, first.child)) as LocalJson;
    expect(local).toEqual({
      apiUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      apiKey: expect.stringMatching(/^ats_live_[0-9A-Za-z]{38}$/),
      userToken: expect.stringMatching(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/),
      dynamodbEndpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      tableName: "ats-local",
    });
    expect(first.output()).toContain(local.apiKey);
    expect(first.output()).toContain(`Console:   ${local.apiUrl}/ — sign in as dev@localhost`);
    // What another terminal exports to reach this stack (issue 24: settings carry over).
    expect(first.output()).toContain(`export ATS_BASE_URL=${local.apiUrl}\n`);
    expect(first.output()).toContain(
      `export ATS_API_KEY=$(node -p 'require("${join(dataDirectory, "local.json")}").apiKey')\n`,
    );
    const consolePage = await fetch(`${local.apiUrl}/sessions`);
    expect(consolePage.status).toBe(200);
    expect(consolePage.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(consolePage.headers.get("x-frame-options")).toBe("DENY");
    expect(await consolePage.text()).toContain('<div id="root">');
    const users = await fetch(`${local.apiUrl}/local/users`);
    expect(await users.json()).toEqual([{ email: "dev@localhost", userId: expect.any(String) }]);
    expect((await createSession(local)).status).toBe(201);
    const keys = await fetch(`${local.apiUrl}/api/keys`, { headers: { authorization: `Bearer ${local.userToken}` } });
    expect(keys.status).toBe(200);
    expect(((await keys.json()) as { items: { name: string }[] }).items.map((key) => key.name)).toEqual([
      "local development",
    ]);
    // The request log is off by default (issue 24: it pushed the banner out of view), and the banner says how.
    expect(first.output()).not.toContain('"message":"request"');
    expect(first.output()).toContain("Request log off (npm start -- --log-requests shows it).");
    const [javaPid] = dynamoPidsOf(first.child.pid ?? -1);
    expect(javaPid).toBeDefined();

    first.child.kill("SIGTERM");
    expect(await exited(first.child)).toBe(0);
    expect(isAlive(javaPid ?? -1)).toBe(false);

    // Second start: same data, same key (not shown again); with the request log.
    const second = start(env, ["--log-requests"]);
    const localJsonPath = join(dataDirectory, "local.json");
    const secondLocal = JSON.parse(
      await (async () => {
        const deadline = Date.now() + 60_000;
        while (!second.output().includes("Ready in")) {
          if (Date.now() > deadline || second.child.exitCode !== null) throw new Error(second.output());
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return readFileSync(localJsonPath, "utf8");
      })(),
    ) as LocalJson;
    expect(secondLocal.apiKey).toBe(local.apiKey);
    expect(second.output()).not.toContain(local.apiKey);
    expect(second.output()).not.toContain("(created)");
    expect((await createSession(secondLocal)).status).toBe(201);
    await expect.poll(() => second.output()).toMatch(/"message":"request".*"route":"POST \/api\/sdk\/sessions"/);
    second.child.kill("SIGINT");
    expect(await exited(second.child)).toBe(0);
  }, 120_000); // two process starts (each a JVM and the server), whose own waits allow 60 s each

  it("a second start on the same DATA_DIR, or on the PORT in use, says at once where the running stack is (exit 1)", async () => {
    // Prepare: a running stack (on the run's DynamoDB: what is checked comes before any database is opened).
    const dataDirectory = freshDataDirectory();
    const endpoint = inject("dynamodbEndpoint");
    const tableName = `ats-start-${randomUUID().slice(0, 8)}`;
    const env = { DATA_DIR: dataDirectory, PORT: "0", DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: tableName };
    const first = start(env);
    try {
      const local = JSON.parse(await waitForFile(join(dataDirectory, "local.json"), 60_000, first.child)) as LocalJson;
      const port = new URL(local.apiUrl).port;

      // Act: the same data directory and port; then another data directory on the same port.
      const again = start({ ...env, PORT: port });
      const againCode = await exited(again.child);
      const otherDirectory = freshDataDirectory();
      const samePort = start({ ...env, PORT: port, DATA_DIR: otherDirectory });
      const samePortCode = await exited(samePort.child);

      // Assess: one line each, naming the running stack; nothing started, no EADDRINUSE or stream error.
      expect(againCode).toBe(1);
      expect(again.output()).toBe(
        `A stack is already running on ${local.apiUrl} (pid ${first.child.pid}, data in ${dataDirectory}): ` +
          `stop it (kill ${first.child.pid}) or start another with PORT=${Number(port) + 1} DATA_DIR=${dataDirectory}-${Number(port) + 1} npm start\n`,
      );
      expect(samePortCode).toBe(1);
      expect(samePort.output()).toBe(
        `Port ${port} is already in use (${local.apiUrl}), by another stack with its own DATA_DIR or another program: ` +
          `stop it or start with PORT=${Number(port) + 1} DATA_DIR=${otherDirectory}-${Number(port) + 1} npm start\n`,
      );
      for (const output of [again.output(), samePort.output()]) {
        expect(output).not.toMatch(/EADDRINUSE|stream|DynamoDB/i);
      }
      // The running stack is untouched and still serves.
      expect((await createSession(local)).status).toBe(201);
      expect(readFileSync(join(dataDirectory, "stack.json"), "utf8")).toContain(`"pid": ${first.child.pid}`);
    } finally {
      first.child.kill("SIGTERM");
      expect(await exited(first.child)).toBe(0);
    }
    // A clean shutdown gives the data directory up.
    expect(readdirSync(dataDirectory)).not.toContain("stack.json");
  }, 120_000); // three process starts on a busy machine

  it("uses an already running DynamoDB at DYNAMODB_ENDPOINT and creates the table with the shared definition", async () => {
    const dataDirectory = freshDataDirectory();
    const tableName = `ats-start-${randomUUID().slice(0, 8)}`;
    const endpoint = inject("dynamodbEndpoint");
    const started = start({ DATA_DIR: dataDirectory, PORT: "0", DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: tableName });
    try {
      const local = JSON.parse(
        await waitForFile(join(dataDirectory, "local.json"), 60_000, started.child),
      ) as LocalJson;
      expect(local.dynamodbEndpoint).toBe(endpoint);
      expect((await createSession(local)).status).toBe(201);

      const client = createLocalDynamoClient(endpoint, inject("dynamodbCredentials"));
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
      client.destroy();
      expect(Table?.KeySchema).toEqual([
        { AttributeName: "PK", KeyType: "HASH" },
        { AttributeName: "SK", KeyType: "RANGE" },
      ]);
      expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(
        GLOBAL_INDEXES.map((index) => index.indexName).sort(),
      );
      expect(ttl.TimeToLiveDescription?.AttributeName).toBe(TTL_ATTRIBUTE);
    } finally {
      started.child.kill("SIGTERM");
      await exited(started.child);
    }
  });
});

describe("npm run keys", () => {
  const env = () => ({ DYNAMODB_ENDPOINT: inject("dynamodbEndpoint"), TABLE_NAME: inject("tableName") });

  it("creates, lists and revokes keys; create prints only the key", async () => {
    const orgId = `cli-${randomUUID().slice(0, 8)}`;

    const created = await runTool("local/keys-cli.ts", ["create", "--org", orgId, "--name", "ci"], env());
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^ats_live_[0-9A-Za-z]{38}\n$/);

    const asJson = await runTool("local/keys-cli.ts", ["create", "--org", orgId, "--name", "second", "--json"], env());
    const record = JSON.parse(asJson.stdout) as { keyId: string; key: string; orgId: string; name: string };
    expect(record).toMatchObject({ orgId, name: "second", key: expect.stringMatching(/^ats_live_/) });

    const listed = await runTool("local/keys-cli.ts", ["list", "--org", orgId, "--json"], env());
    const keys = JSON.parse(listed.stdout) as { keyId: string; name: string }[];
    expect(keys.map((key) => key.name).sort()).toEqual(["ci", "second"]);
    expect(listed.stdout).not.toContain(record.key);

    const revoked = await runTool("local/keys-cli.ts", ["revoke", "--id", record.keyId, "--json"], env());
    expect(JSON.parse(revoked.stdout)).toMatchObject({ keyId: record.keyId, revokedAt: expect.stringMatching(/Z$/) });
  });

  it("exits 2 with usage help on a bad command or flag", async () => {
    const missingName = await runTool("local/keys-cli.ts", ["create", "--org", "acme"], env());
    expect(missingName.code).toBe(2);
    expect(missingName.stderr).toContain("Missing --name");

    const unknown = await runTool("local/keys-cli.ts", ["rotate"], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Usage:");

    const badOrg = await runTool("local/keys-cli.ts", ["create", "--org", "Not A Slug", "--name", "x"], env());
    expect(badOrg.code).toBe(2);
  });
});

describe("npm run users", () => {
  it("issues access tokens from the local issuer; the first member of an organisation owns it", async () => {
    // Prepare: a local API serving the JWKS of an identity kept in a fresh DATA_DIR.
    const dataDirectory = freshDataDirectory();
    const localIdentity = LocalIdentity.open(join(dataDirectory, "identity"));
    const api = await startLocalApi({
      routes,
      root: REPOSITORY_ROOT,
      documents: { "/.well-known/jwks.json": () => localIdentity.jwks() },
    });
    configureLocalIssuer(api.url);
    writeFileSync(join(dataDirectory, "local.json"), JSON.stringify({ apiUrl: api.url }));
    const env = {
      DATA_DIR: dataDirectory,
      DYNAMODB_ENDPOINT: inject("dynamodbEndpoint"),
      TABLE_NAME: inject("tableName"),
    };
    const orgId = `users-${randomUUID().slice(0, 8)}`;

    try {
      // Act
      const ownerToken = await runTool(
        "local/users-cli.ts",
        ["token", "--email", "ada@example.com", "--org", orgId],
        env,
      );
      const memberToken = await runTool(
        "local/users-cli.ts",
        ["token", "--email", "bob@example.com", "--org", orgId],
        env,
      );
      const asOwner = await fetch(`${api.url}/api/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${ownerToken.stdout.trim()}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "from the CLI user" }),
      });
      const asMember = await fetch(`${api.url}/api/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${memberToken.stdout.trim()}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "not allowed" }),
      });
      const memberList = await fetch(`${api.url}/api/keys`, {
        headers: { authorization: `Bearer ${memberToken.stdout.trim()}` },
      });

      // Assess
      expect(ownerToken.code).toBe(0);
      expect(ownerToken.stdout).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
      expect(asOwner.status).toBe(201);
      expect(asMember.status).toBe(403);
      expect(memberList.status).toBe(200);
      const listed = (await memberList.json()) as { items: { name: string; createdBy: string }[] };
      expect(listed.items).toEqual([
        expect.objectContaining({ name: "from the CLI user", createdBy: "ada@example.com" }),
      ]);
    } finally {
      await api.close();
    }
  });
});

describe("npm run orgs", () => {
  it("sets an organisation's retention: new items expire after it, rollups after the rollup retention", async () => {
    const env = { DYNAMODB_ENDPOINT: inject("dynamodbEndpoint"), TABLE_NAME: inject("tableName") };
    const orgId = `ret-${randomUUID().slice(0, 8)}`;
    const created = await runTool("local/keys-cli.ts", ["create", "--org", orgId, "--name", "k"], env);
    const key = created.stdout.trim();

    const result = await runTool(
      "local/orgs-cli.ts",
      ["retention", "--org", orgId, "--days", "7", "--rollup-days", "30"],
      env,
    );
    const api = await startLocalApi({ routes, root: REPOSITORY_ROOT });
    try {
      const response = await fetch(`${api.url}/api/sdk/sessions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "n", agentName: "retained", userId: "u" }),
      });
      const { id } = (await response.json()) as { id: string };
      // The agent summary is counted from the stream.
      await settleCounts();
      const client = createLocalDynamoClient(inject("dynamodbEndpoint"), inject("dynamodbCredentials"));
      const session = await client.send(
        new GetItemCommand({
          TableName: inject("tableName"),
          Key: { PK: { S: `SESSION#${id}` }, SK: { S: "SESSION" } },
        }),
      );
      const rollup = await client.send(
        new GetItemCommand({
          TableName: inject("tableName"),
          Key: { PK: { S: `ROLLUP#ORG#${orgId}#ENV#live#AGENTS` }, SK: { S: "AGENT#retained" } },
        }),
      );
      client.destroy();
      const now = Date.now() / 1000;

      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ orgId, retentionDays: 7, rollupRetentionDays: 30 });
      expect(Number(session.Item?.ttl?.N) - now).toBeGreaterThan(7 * 86_400 - 120);
      expect(Number(session.Item?.ttl?.N) - now).toBeLessThan(7 * 86_400 + 120);
      expect(Number(rollup.Item?.ttl?.N) - now).toBeGreaterThan(30 * 86_400 - 120);
      expect(Number(rollup.Item?.ttl?.N) - now).toBeLessThan(30 * 86_400 + 120);
    } finally {
      await api.close();
    }
  });

  it("rejects a retention outside 1–3650 days (exit 2)", async () => {
    const env = { DYNAMODB_ENDPOINT: inject("dynamodbEndpoint"), TABLE_NAME: inject("tableName") };
    const result = await runTool("local/orgs-cli.ts", ["retention", "--org", "x", "--days", "0"], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--days must be 1 to 3650");
  });
});
