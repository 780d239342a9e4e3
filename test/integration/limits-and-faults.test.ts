/** Large payloads offloaded to S3, DynamoDB throttling mapped to 503, per-key rate limits with 429. */
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureOrganisation, updateOrganisationSettings } from "../../functions/store/members/organisation-store.js";
import { documentClient, tableName } from "../../functions/store/table/dynamo-client.js";
import { eventKey } from "../../functions/store/table/keys.js";
import type { LocalApi } from "../../local/http-adapter.js";
import {
  call,
  createTestKey,
  createTestSession,
  startTestApi,
  storedEvents,
  storedSession,
  type TestKey,
  uniqueOrgId,
} from "../support/fixtures.js";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey({ scopes: ["sessions:write", "events:write", "read", "delete"] });
});
afterAll(() => api.close());

describe("large payloads", () => {
  it("offloads fields over 32 KiB to S3, keeps a pointer, and resolves them transparently on read", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const toolInput = { document: "ü".repeat(60_000), n: 1 };
    const reasoning = "because ".repeat(5_000);

    const created = await call(api, "POST", "/api/sdk/events", {
      key: owner.key,
      body: {
        sessionId,
        eventType: "tool_call",
        toolName: "read_file",
        toolInput,
        toolOutput: { ok: true },
        reasoning,
      },
    });

    expect(created.status).toBe(201);
    const item = (
      await documentClient.send(
        new GetCommand({
          TableName: tableName,
          Key: eventKey(sessionId, String(created.body.id)),
          ConsistentRead: true,
        }),
      )
    ).Item;
    expect(item?.toolInputJsonRef).toMatch(/^payloads\//);
    expect(item?.toolInputJson).toBeUndefined();
    expect(item?.reasoningRef).toMatch(/^payloads\//);
    expect(item?.toolOutputJson).toBe('{"ok":true}');
    expect(JSON.stringify(item).length).toBeLessThan(10_000);

    const listed = await call(api, "GET", `/api/sdk/sessions/${sessionId}/events`, { key: owner.key });
    const [event] = listed.body.items as Record<string, unknown>[];
    expect(event?.toolInput).toEqual(toolInput);
    expect(event?.reasoning).toBe(reasoning);
    const summary = await call(api, "GET", `/api/sdk/sessions/${sessionId}/events?fields=summary`, { key: owner.key });
    const [brief] = summary.body.items as Record<string, unknown>[];
    expect(brief).not.toHaveProperty("toolInput");
    expect(brief).not.toHaveProperty("toolInputJsonRef");
    expect(brief?.reasoning).toBe(reasoning);

    expect((await call(api, "DELETE", `/api/sdk/sessions/${sessionId}`, { key: owner.key })).status).toBe(204);
  });
});

describe("DynamoDB throttling", () => {
  it("answers 503 with Retry-After and stores nothing", async () => {
    const sessionId = await createTestSession(api, owner.key);
    const throttle =
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
        // The event's own write: one PutItem.
        if (context.commandName === "PutCommand" || context.commandName === "PutItemCommand") {
          throw Object.assign(new Error("The level of configured provisioned throughput for the table was exceeded"), {
            name: "ProvisionedThroughputExceededException",
          });
        }
        return next(args);
      };
    documentClient.middlewareStack.add(throttle as never, { step: "initialize", name: "testThrottle" });
    try {
      const response = await call(api, "POST", "/api/sdk/events", {
        key: owner.key,
        body: { sessionId, eventType: "error" },
      });

      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(response.body).toEqual({
        error: "Service Unavailable",
        message: "The service is busy; retry after the Retry-After delay",
      });
    } finally {
      documentClient.middlewareStack.remove("testThrottle");
    }
    expect(await storedEvents(sessionId)).toHaveLength(0);
    expect(await storedSession(sessionId)).toMatchObject({ eventCount: 0 });
  });
});

describe("rate limits", () => {
  it("refuses requests over the organisation's per-key limit with 429, Retry-After and RateLimit headers", async () => {
    const orgId = uniqueOrgId();
    await ensureOrganisation(orgId);
    await updateOrganisationSettings(orgId, { rateLimitPerMinute: 5 });
    const limited = await createTestKey({ orgId });
    // Stay inside one one-minute window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));

    const responses = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      responses.push(
        await call(api, "POST", "/api/sdk/sessions", {
          key: limited.key,
          body: { name: "n", agentName: "a", userId: "u" },
        }),
      );
    }

    expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201, 201, 429]);
    expect(responses[0]?.headers.get("ratelimit-limit")).toBe("5");
    expect(responses[4]?.headers.get("ratelimit-remaining")).toBe("0");
    const refused = responses[5];
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused?.body).toEqual({
      error: "Too Many Requests",
      message: expect.stringMatching(
        /^Rate limit of 5 requests per minute for this organisation reached; retry in \d+ s$/,
      ),
    });
  });
});
