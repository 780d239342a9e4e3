/**
 * An organisation's own prices over real HTTP and DynamoDB Local: set, list, delete, the audit, roles, tenancy,
 * bounds; and the store read that pricing at ingest caches (one Query of the organisation's partition).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOrganisationPrices } from "../../functions/pricing/organisation-prices.js";
import { priceUsage } from "../../functions/pricing/price-usage.js";
import { listOrganisationPrices, setOrganisationPrice } from "../../functions/store/prices/organisation-price-store.js";
import { ORGANISATION_PRICE_LIMITS } from "../../functions/store/prices/price-limits.js";
import { organisationKey } from "../../functions/store/table/keys.js";
import { updateIfExists } from "../../functions/store/table/table-operations.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { recordDynamoCommands } from "../support/dynamo-call-counter.js";
import { call, createTestUser, itemsOfOrganisation, startTestApi, type TestUser } from "../support/fixtures.js";

let api: LocalApi;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestUser(api);
  admin = await createTestUser(api, { orgId: owner.orgId, role: "admin" });
  member = await createTestUser(api, { orgId: owner.orgId, role: "member" });
  stranger = await createTestUser(api);
});
afterAll(() => api.close());

const rates = { effectiveFrom: "2026-12-01", input: 0.3, output: 1.2 };
const path = (model: string) => `/api/prices/${encodeURIComponent(model)}`;

function put(user: TestUser, model: string, body: Record<string, unknown> = rates) {
  return call(api, "PUT", path(model), { key: user.token, body });
}

describe("PUT /api/prices/{model}", () => {
  it("sets a price from a day on, lower-cased, with every rate and tiers, and lists it", async () => {
    const response = await put(admin, "FT:GPT-4o-mini:acme/support#1", {
      effectiveFrom: "2026-12-01",
      input: 0.3,
      output: 1.2,
      cacheRead: 0.075,
      cacheWrite: 0.375,
      reasoning: 2,
      tiers: [
        { above: 200_000, input: 0.6 },
        { above: 100_000, input: 0.45, output: null },
      ],
    });

    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const expected = {
      model: "ft:gpt-4o-mini:acme/support#1",
      effectiveFrom: "2026-12-01",
      input: 0.3,
      output: 1.2,
      cacheRead: 0.075,
      cacheWrite: 0.375,
      reasoning: 2,
      tiers: [
        { above: 100_000, input: 0.45 },
        { above: 200_000, input: 0.6 },
      ],
      updatedAt: expect.stringMatching(/Z$/),
      updatedBy: admin.email,
    };
    expect(response.body).toEqual(expected);
    const listed = await call(api, "GET", "/api/prices", { key: member.token });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toContainEqual(expected);
    expect(listed.body.limits).toEqual({ pricesPerOrganisation: 500, pricesPerModel: 20 });
  });

  it("keeps dated prices apart, replaces one day's rates, and audits before and after", async () => {
    const owned = await createTestUser(api);
    await put(owned, "our-llama", { effectiveFrom: "2026-01-01", input: 1, output: 2 });
    await put(owned, "our-llama", { effectiveFrom: "2026-06-01", input: 0.5, output: 1 });
    const changed = await put(owned, "our-llama", { effectiveFrom: "2026-06-01", input: 0.4, output: 1 });
    const again = await put(owned, "our-llama", { effectiveFrom: "2026-06-01", input: 0.4, output: 1 });

    expect(changed.status).toBe(200);
    expect(again.body).toEqual(changed.body);
    const listed = await call(api, "GET", "/api/prices", { key: owned.token });
    expect(
      (listed.body.items as { effectiveFrom: string; input: number }[]).map((p) => [p.effectiveFrom, p.input]),
    ).toEqual([
      ["2026-06-01", 0.4],
      ["2026-01-01", 1],
    ]);
    const audit = await call(api, "GET", "/api/prices/audit", { key: owned.token });
    expect(audit.status).toBe(200);
    // Newest first; the same rates again audited nothing.
    expect(audit.body.items).toEqual([
      expect.objectContaining({
        action: "price.set",
        model: "our-llama",
        effectiveFrom: "2026-06-01",
        actor: owned.email,
        actorId: owned.userId,
        before: { input: 0.5, output: 1 },
        after: { input: 0.4, output: 1 },
      }),
      expect.objectContaining({ effectiveFrom: "2026-06-01", before: null, after: { input: 0.5, output: 1 } }),
      expect.objectContaining({ effectiveFrom: "2026-01-01", before: null, after: { input: 1, output: 2 } }),
    ]);
  });

  it("stores a model named __proto__ as data", async () => {
    const response = await put(admin, "__proto__");

    expect(response.status, response.text).toBe(200);
    expect(response.body.model).toBe("__proto__");
    const listed = await call(api, "GET", "/api/prices", { key: admin.token });
    expect((listed.body.items as { model: string }[]).map((price) => price.model)).toContain("__proto__");
  });

  it.each([
    [{ ...rates, input: -1 }, "input", "Must be a number from 0 to 10000"],
    [{ ...rates, output: 10_001 }, "output", "Must be a number from 0 to 10000"],
    [{ ...rates, cacheRead: "0.1" }, "cacheRead", "Must be a number from 0 to 10000"],
    [
      { ...rates, effectiveFrom: "2026-02-30" },
      "effectiveFrom",
      "Must be a date YYYY-MM-DD from 2000-01-01 to 2099-12-31",
    ],
    [{ input: 1, output: 1 }, "effectiveFrom", "Required"],
    [{ ...rates, tiers: [{ above: 0 }] }, "tiers.0.above", "Must be an integer from 1 to 100000000"],
    [{ ...rates, tiers: [{ above: 5 }, { above: 5 }] }, "tiers", "Each tier must have its own `above`"],
    [
      { ...rates, tiers: Array.from({ length: 5 }, (_, i) => ({ above: i + 1 })) },
      "tiers",
      "Must have at most 4 tiers",
    ],
    [{ ...rates, currency: "EUR" }, "currency", "Unknown field"],
  ])("refuses %j with 400 naming %s", async (body, field, message) => {
    const response = await put(admin, "bounded-model", body);

    expect(response.status, response.text).toBe(400);
    expect(response.body.issues).toContainEqual({ path: field, message });
  });

  it.each([
    ["x".repeat(257), "longer than 256 characters"],
    ["  ", "blank"],
    ["bad\u0001name", "a control character"],
  ])("refuses a model name %#: %s", async (model) => {
    const response = await put(admin, model);

    expect(response.status).toBe(400);
    expect(response.body.message).toBe(
      "Invalid model in the path: must be 1 to 256 characters (at most 768 bytes of utf-8), without control characters",
    );
  });

  it("accepts a 256-character name", async () => {
    const response = await put(admin, "m".repeat(256));

    expect(response.status, response.text).toBe(200);
  });

  it("refuses members who are not admins (403) and stores nothing", async () => {
    const before = await itemsOfOrganisation(owner.orgId);

    const set = await put(member, "member-model");
    const removed = await call(api, "DELETE", path("__proto__"), { key: member.token });
    const audit = await call(api, "GET", "/api/prices/audit", { key: member.token });

    for (const response of [set, removed, audit]) {
      expect(response.status).toBe(403);
      expect(response.body.error).toBe("Forbidden");
    }
    expect(await itemsOfOrganisation(owner.orgId)).toEqual(before);
  });

  it("keeps organisations apart: another's prices are neither listed, changed nor deleted", async () => {
    await put(admin, "tenancy-model");

    const theirs = await call(api, "GET", "/api/prices", { key: stranger.token });
    const deleted = await call(api, "DELETE", path("tenancy-model"), { key: stranger.token });
    const set = await put(stranger, "tenancy-model", { ...rates, input: 99 });

    expect(theirs.body.items).toEqual([]);
    expect(deleted.status).toBe(404);
    expect(set.status).toBe(200);
    const ours = (await listOrganisationPrices(owner.orgId)).find((price) => price.model === "tenancy-model");
    expect(ours?.input).toBe(0.3);
    const strangers = await listOrganisationPrices(stranger.orgId);
    expect(strangers.map((price) => [price.model, price.input])).toEqual([["tenancy-model", 99]]);
  });

  it("refuses the organisation's 501st price with 409, and a model's 21st", async () => {
    const full = await createTestUser(api);
    // As if 500 were stored: the count on the organisation item is what the condition reads.
    await updateIfExists(
      organisationKey(full.orgId),
      { set: { priceCount: ORGANISATION_PRICE_LIMITS.pricesPerOrganisation } },
      { allowed: ["priceCount"] },
    );

    const refused = await put(full, "one-too-many");

    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      `Organisation ${full.orgId} has 500 prices, the most allowed; delete one before adding another`,
    );
    expect(await listOrganisationPrices(full.orgId)).toEqual([]);

    const dated = await createTestUser(api);
    for (let month = 1; month <= 20; month++) {
      const day = `2026-${String(((month - 1) % 12) + 1).padStart(2, "0")}-${month > 12 ? "15" : "01"}`;
      expect((await put(dated, "many-dates", { ...rates, effectiveFrom: day })).status).toBe(200);
    }
    const twentyFirst = await put(dated, "many-dates", { ...rates, effectiveFrom: "2027-01-01" });
    expect(twentyFirst.status).toBe(409);
    expect(twentyFirst.body.message).toBe(
      "many-dates has 20 dated prices, the most allowed; delete one before adding another",
    );
  });
});

describe("DELETE /api/prices/{model}", () => {
  it("deletes one dated price, then the rest, with the count following and each deletion audited", async () => {
    const user = await createTestUser(api);
    await put(user, "gone-model", { effectiveFrom: "2026-01-01", input: 1, output: 2 });
    await put(user, "gone-model", { effectiveFrom: "2026-06-01", input: 1, output: 2 });
    await put(user, "kept-model");

    const one = await call(api, "DELETE", `${path("gone-model")}?effectiveFrom=2026-06-01`, { key: user.token });
    expect(one.status, one.text).toBe(204);
    expect((await listOrganisationPrices(user.orgId)).map((p) => [p.model, p.effectiveFrom])).toEqual([
      ["gone-model", "2026-01-01"],
      ["kept-model", "2026-12-01"],
    ]);

    const missing = await call(api, "DELETE", `${path("gone-model")}?effectiveFrom=2026-06-01`, { key: user.token });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(`No price of gone-model from 2026-06-01 in organisation ${user.orgId}`);

    const rest = await call(api, "DELETE", path("GONE-MODEL"), { key: user.token });
    expect(rest.status).toBe(204);
    expect((await listOrganisationPrices(user.orgId)).map((p) => p.model)).toEqual(["kept-model"]);
    const organisation = (await itemsOfOrganisation(user.orgId)).find((item) => item.SK === "ORG");
    expect(organisation?.priceCount).toBe(1);
    const audit = await call(api, "GET", "/api/prices/audit", { key: user.token });
    expect((audit.body.items as { action: string; effectiveFrom: string; after: unknown }[]).slice(0, 2)).toEqual([
      expect.objectContaining({ action: "price.deleted", effectiveFrom: "2026-01-01", after: null }),
      expect.objectContaining({ action: "price.deleted", effectiveFrom: "2026-06-01", after: null }),
    ]);
  });

  it("refuses a malformed effectiveFrom with 400", async () => {
    const response = await call(api, "DELETE", `${path("any")}?effectiveFrom=soon`, { key: admin.token });

    expect(response.status).toBe(400);
    expect(response.body.issues).toContainEqual({
      path: "effectiveFrom",
      message: "Must be a date YYYY-MM-DD from 2000-01-01 to 2099-12-31",
    });
  });
});

describe("GET /api/prices/table", () => {
  it("serves the shipped table to any member", async () => {
    const response = await call(api, "GET", "/api/prices/table", { key: member.token });

    expect(response.status).toBe(200);
    const items = response.body.items as { model: string; provider: string; source: string }[];
    expect(items.length).toBeGreaterThan(100);
    expect(items).toContainEqual(expect.objectContaining({ model: "gpt-4o-mini", provider: "openai" }));
    const sources = response.body.sources as Record<string, unknown>;
    for (const item of items) expect(sources[item.source]).toBeDefined();
  });
});

describe("listOrganisationPrices (the read pricing caches)", () => {
  it("reads an organisation's prices with one Query", async () => {
    const user = await createTestUser(api);
    await put(user, "a-model");
    await put(user, "b-model");

    const recorder = recordDynamoCommands();
    recorder.reset();

    const prices = await listOrganisationPrices(user.orgId, { consistent: false });

    expect(prices.map((price) => price.model)).toEqual(["a-model", "b-model"]);
    expect(recorder.commands().filter((command) => command === "QueryCommand")).toHaveLength(1);
  });
});

describe("loadOrganisationPrices (what ingest prices with)", () => {
  it("prices a call with the organisation's price, then serves it from memory until it expires", async () => {
    const user = await createTestUser(api);
    await put(user, "Azure/Our-Prod-Chat", { effectiveFrom: "2026-01-01", input: 2, output: 8 });
    const recorder = recordDynamoCommands();
    const usage = { promptTokens: 1_000_000, completionTokens: 500_000 };

    recorder.reset();
    const prices = await loadOrganisationPrices(user.orgId);
    const priced = priceUsage({
      model: "azure/our-prod-chat",
      usage,
      at: "2026-11-22T10:00:00Z",
      organisationPrices: prices,
    });
    const before = priceUsage({
      model: "azure/our-prod-chat",
      usage,
      at: "2025-12-31T23:59:59Z",
      organisationPrices: prices,
    });
    // A change made elsewhere (another function) is not seen before the expiry, and costs no read.
    await setOrganisationPrice(
      user.orgId,
      { model: "azure/our-prod-chat", effectiveFrom: "2026-01-01", input: 1, output: 1 },
      {
        name: "tests",
      },
    );
    const cached = await loadOrganisationPrices(user.orgId);
    const queries = recorder.commands().filter((command) => command === "QueryCommand");

    expect(priced).toEqual({
      cost: 6,
      costSource: "organisation",
      priceEffectiveFrom: "2026-01-01",
      matchedModel: "azure/our-prod-chat",
    });
    expect(before).toEqual({ cost: null, costSource: "unpriced", unpricedReason: "no-price-in-effect" });
    expect(cached).toBe(prices);
    // The first load's Query, then the change's own read of the model's prices; the second load read nothing.
    expect(queries).toHaveLength(2);
  });
});
