/**
 * Items read per page of GET /api/sdk/sessions under every combination of
 * agentName, userId and status (issue 11, "Filter combinations"). The seed is
 * a needle in a haystack: one busy agent with many users, and a rare user with
 * a few sessions of that agent. A filter answered by a broader index plus a
 * FilterExpression would read the whole haystack to fill a page; here every
 * page reads at most `limit` index keys and `limit` sessions, and paging
 * through a filter reads only the sessions it returns.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, updateSession } from "../../functions/store/sessions/session-store.js";
import { documentClient } from "../../functions/store/table/dynamo-client.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { call, createTestKey, startTestApi, type TestKey } from "../support/fixtures.js";
import { principalFor } from "../support/seed.js";

const BUSY_AGENT = "busy-agent";
const RARE_USER = "rare-user";
const CROWD = 36;
const LIMIT = 2;

/** What one request read: index keys (Query ScannedCount), session items (BatchGet), and the commands sent. */
interface Reads {
  keys: number;
  items: number;
  commands: string[];
}
let reads: Reads = { keys: 0, items: 0, commands: [] };

documentClient.middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    reads.commands.push(String(context.commandName));
    const output = result.output as { ScannedCount?: number; Responses?: Record<string, unknown[]> };
    if (context.commandName === "QueryCommand") reads.keys += output.ScannedCount ?? 0;
    if (context.commandName === "BatchGetCommand" || context.commandName === "BatchGetItemCommand") {
      for (const items of Object.values(output.Responses ?? {})) reads.items += items.length;
    }
    return result;
  },
  { step: "initialize", name: "atsTestItemsReadCounter" },
);

interface Seeded {
  readonly id: string;
  readonly agentName: string;
  readonly userId: string;
  readonly status: string;
  readonly order: string;
}

let api: LocalApi;
let tenant: TestKey;
const seeded: Seeded[] = [];

beforeAll(async () => {
  api = await startTestApi();
  tenant = await createTestKey({ scopes: ["sessions:write", "read"] });
  const principal = principalFor(tenant.orgId);
  const start = Date.now() - 3_600_000;
  // The haystack: CROWD sessions of the busy agent by other users; then the rare user's few sessions.
  const plans = [
    ...Array.from({ length: CROWD }, (_, index) => ({
      agentName: BUSY_AGENT,
      userId: `crowd-${index % 9}`,
      end: index % 3 === 0,
    })),
    { agentName: BUSY_AGENT, userId: RARE_USER, end: true },
    { agentName: BUSY_AGENT, userId: RARE_USER, end: false },
    { agentName: BUSY_AGENT, userId: RARE_USER, end: true },
    { agentName: "quiet-agent", userId: RARE_USER, end: true },
    { agentName: "quiet-agent", userId: RARE_USER, end: false },
  ];
  for (const [index, plan] of plans.entries()) {
    const at = start + index * 1_000;
    const session = await createSession(
      principal,
      { name: `s${index}`, agentName: plan.agentName, userId: plan.userId },
      at,
    );
    if (plan.end) await updateSession(principal, session.id, { status: "completed" }, at + 500);
    seeded.push({
      id: session.id,
      agentName: plan.agentName,
      userId: plan.userId,
      status: plan.end ? "completed" : "active",
      order: `${session.createdAt}#${session.id}`,
    });
  }
}, 120_000);
afterAll(() => api.close());

describe("GET /api/sdk/sessions items read per page", () => {
  it("reads at most `limit` index keys and `limit` sessions per page under every filter combination, never a Scan, and only the matching sessions in all", async () => {
    const values = { agentName: BUSY_AGENT, userId: RARE_USER, status: "completed" } as const;
    const names = ["agentName", "userId", "status"] as const;
    const figures: string[] = [];
    for (let bits = 0; bits < 8; bits++) {
      const combination = names.filter((_, index) => bits & (1 << index));
      const filters: Record<string, string> = {};
      for (const name of combination) filters[name] = values[name];
      const query = new URLSearchParams(filters).toString();
      const expected = seeded
        .filter((session) => combination.every((name) => session[name] === values[name]))
        .sort((a, b) => b.order.localeCompare(a.order))
        .map((session) => session.id);

      const ids: string[] = [];
      const perPage: Reads[] = [];
      let cursor: string | null = null;
      do {
        reads = { keys: 0, items: 0, commands: [] };
        const cursorPart = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
        const response = await call(api, "GET", `/api/sdk/sessions?${query}&limit=${LIMIT}${cursorPart}`, {
          key: tenant.key,
        });
        expect(response.status, query).toBe(200);
        ids.push(...(response.body.items as { id: string }[]).map((item) => item.id));
        perPage.push(reads);
        cursor = response.body.nextCursor as string | null;
      } while (cursor !== null);

      expect(ids, query).toEqual(expected);
      for (const page of perPage) {
        expect(page.keys, query).toBeLessThanOrEqual(LIMIT);
        expect(page.items, query).toBeLessThanOrEqual(LIMIT);
        expect(page.commands, query).not.toContain("ScanCommand");
      }
      expect(
        perPage.slice(0, -1).every((page) => page.items === LIMIT),
        `${query}: every page but the last is full`,
      ).toBe(true);
      // Over all pages: only the matching sessions were read (a filter over a broader index reads the haystack).
      expect(
        perPage.reduce((sum, page) => sum + page.items, 0),
        query,
      ).toBe(expected.length);
      expect(
        perPage.reduce((sum, page) => sum + page.keys, 0),
        query,
      ).toBe(expected.length);
      figures.push(
        `${combination.join("+") || "none"}: ${expected.length} matching, ${perPage.length} pages, max ${Math.max(...perPage.map((page) => page.keys))} keys + ${Math.max(...perPage.map((page) => page.items))} items per page`,
      );
    }
    console.log(`items read per page (limit ${LIMIT}):\n${figures.join("\n")}`);
  });
});
