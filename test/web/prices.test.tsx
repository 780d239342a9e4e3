// @vitest-environment jsdom
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, test } from "vitest";
import { searchPriceTable, unpricedModels } from "../../web/src/pages/prices/price-logic";
import { apiError, baseRoutes, json, mockFetch, renderApp } from "./support/render-app";

const PRICE = {
  model: "ft:gpt-4o-mini:acme:support",
  effectiveFrom: "2026-06-01",
  input: 0.3,
  output: 1.2,
  cacheRead: 0.075,
  updatedAt: "2026-11-20T10:00:00.000Z",
  updatedBy: "ada@example.com",
};
const LIMITS = { pricesPerOrganisation: 500, pricesPerModel: 20 };
const TABLE = {
  sources: { litellm: { title: "LiteLLM", url: "https://example.com/litellm", asOf: "2026-07-24" } },
  items: [
    {
      model: "gpt-4o-mini",
      provider: "openai",
      effectiveFrom: "2024-07-18",
      source: "litellm",
      input: 0.15,
      output: 0.6,
    },
    { model: "gpt-4o", provider: "openai", effectiveFrom: "2024-05-13", source: "litellm", input: 2.5, output: 10 },
    {
      model: "claude-sonnet-4",
      provider: "anthropic",
      effectiveFrom: "2025-05-22",
      source: "litellm",
      input: 3,
      output: 15,
    },
  ],
};
/** A line of GET /api/sdk/models as the server answers it. */
function modelLine(model: string | null, calls: number, estimatedCost: number, unpricedCalls: number) {
  const tokens = { promptTokens: 0, completionTokens: 0, totalTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  return { model, calls, estimatedCost, ...tokens, reasoningTokens: 0, unpricedCalls };
}
const MODELS = [
  modelLine("gpt-4o", 120, 1.5, 0),
  modelLine("our-llama", 40, 0, 40),
  modelLine("azure/our-prod-chat", 300, 0.2, 260),
  // Calls that named no model: nothing to give a price to, so not listed.
  modelLine(null, 7, 0, 7),
];
const { model: _noModel, ...TOTALS } = modelLine(null, 467, 1.7, 307);
const AUDIT = [
  {
    id: "aud_01KAZ2R4M7N8P9Q0R1S2T3V4WZ",
    action: "price.set",
    model: PRICE.model,
    effectiveFrom: PRICE.effectiveFrom,
    actor: "ada@example.com",
    actorId: "user-1",
    at: "2026-11-20T10:00:00.000Z",
    before: { input: 0.25, output: 1 },
    after: { input: 0.3, output: 1.2, cacheRead: 0.075 },
  },
];

function priceRoutes(role: "member" | "admin") {
  return {
    ...baseRoutes(role),
    "GET /api/prices": json({ items: [PRICE], limits: LIMITS }),
    "GET /api/prices/table": json(TABLE),
    "GET /api/prices/audit": json({ items: AUDIT }),
    "GET /api/sdk/models": json({
      from: "2026-10-29",
      to: "2026-11-27",
      models: MODELS,
      totals: TOTALS,
      agentsWithoutStats: 0,
    }),
  };
}

describe("Models and prices page", () => {
  test("a member reads the prices, the unpriced models of the last 30 days and the table, and changes nothing", async () => {
    // Prepare
    const requests = mockFetch(priceRoutes("member"));

    // Act
    renderApp("/settings/prices");

    // Assess: the organisation's price, read-only
    const own = await screen.findByRole("table", { name: "Prices of acme, in USD per million tokens" });
    const row = within(own).getByRole("row", { name: /ft:gpt-4o-mini:acme:support/ });
    expect(within(row).getByText("$0.3")).toBeTruthy();
    expect(within(row).getByText("$0.075")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Add a price" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Delete the price/ })).toBeNull();
    expect(screen.getByText(/owners and admins set prices/)).toBeTruthy();
    // The models used without a price: most unpriced calls first, priced ones left out
    const unpriced = await screen.findByRole("table", { name: /without a price/ });
    expect(
      within(unpriced)
        .getAllByRole("rowheader")
        .map((cell) => cell.textContent),
    ).toEqual(["azure/our-prod-chat", "our-llama"]);
    const models = requests.find((request) => request.path === "/api/sdk/models");
    expect(models?.headers.get("X-Environment")).toBe("live");
    const from = models?.query.get("from") ?? "";
    const to = models?.query.get("to") ?? "";
    expect((Date.parse(to) - Date.parse(from)) / 86_400_000).toBe(29);
    // No audit for members (admins only), and the nav names the page
    expect(requests.some((request) => request.path === "/api/prices/audit")).toBe(false);
    expect(screen.getByRole("link", { name: "Models and prices" }).getAttribute("aria-current")).toBe("page");
  });

  test("the shipped table is searchable", async () => {
    // Prepare
    const user = userEvent.setup();
    mockFetch(priceRoutes("member"));
    renderApp("/settings/prices");
    const search = await screen.findByRole("searchbox", { name: "Search the table" });

    // Act
    await user.type(search, "OPENAI mini");

    // Assess
    const table = screen.getByRole("table", { name: /shipped with the service/ });
    expect(
      within(table)
        .getAllByRole("rowheader")
        .map((cell) => cell.textContent),
    ).toEqual(["gpt-4o-mini"]);
    expect(screen.getByText("1 price matches.")).toBeTruthy();
    await user.clear(search);
    await user.type(search, "mistral");
    expect(screen.getByText("No model of the table matches.")).toBeTruthy();
  });

  test("an admin prices an unpriced model from the list: the PUT, then the list read again", async () => {
    // Prepare
    const user = userEvent.setup();
    let listed = [PRICE];
    const requests = mockFetch({
      ...priceRoutes("admin"),
      "GET /api/prices": () => json({ items: listed, limits: LIMITS }),
      "PUT /api/prices/our-llama": (request) => {
        const saved = { model: "our-llama", ...(request.body as object), updatedAt: PRICE.updatedAt, updatedBy: "ada" };
        listed = [...listed, saved as typeof PRICE];
        return json(saved);
      },
    });
    renderApp("/settings/prices");

    // Act
    await user.click(await screen.findByRole("button", { name: "Set a price for our-llama" }));
    const dialog = screen.getByRole("dialog", { name: "Add a price" });
    expect((within(dialog).getByLabelText("Model") as HTMLInputElement).value).toBe("our-llama");
    await user.clear(within(dialog).getByLabelText("Applies from (UTC day)"));
    await user.type(within(dialog).getByLabelText("Applies from (UTC day)"), "2026-12-01");
    await user.type(within(dialog).getByLabelText("Input"), "0.2");
    await user.type(within(dialog).getByLabelText("Output"), "0.8");
    await user.type(within(dialog).getByLabelText("Reasoning"), "1");
    await user.click(within(dialog).getByRole("button", { name: "Save price" }));

    // Assess
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const put = requests.find((request) => request.method === "PUT");
    expect(put?.path).toBe("/api/prices/our-llama");
    expect(put?.body).toEqual({ effectiveFrom: "2026-12-01", input: 0.2, output: 0.8, reasoning: 1 });
    expect(await screen.findByText("Price of our-llama saved.")).toBeTruthy();
    const own = screen.getByRole("table", { name: "Prices of acme, in USD per million tokens" });
    expect(await within(own).findByRole("row", { name: /our-llama/ })).toBeTruthy();
  });

  test("the form refuses bad rates before sending, and shows the service's refusal", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch({
      ...priceRoutes("admin"),
      "PUT /api/prices/azure%2Fbig": apiError(
        409,
        "Conflict",
        "Organisation acme has 500 prices, the most allowed; delete one before adding another",
      ),
    });
    renderApp("/settings/prices");
    await user.click(await screen.findByRole("button", { name: "Add a price" }));
    const dialog = screen.getByRole("dialog", { name: "Add a price" });
    await user.type(within(dialog).getByLabelText("Model"), "azure/big");

    // Act: a negative rate
    await user.type(within(dialog).getByLabelText("Input"), "-1");
    await user.type(within(dialog).getByLabelText("Output"), "2");
    await user.click(within(dialog).getByRole("button", { name: "Save price" }));

    // Assess
    expect(within(dialog).getByRole("alert").textContent).toBe("Input must be a number from 0 to 10000.");
    expect(requests.some((request) => request.method === "PUT")).toBe(false);

    // Act: fixed, then refused by the service (the model name's `/` travels encoded)
    await user.clear(within(dialog).getByLabelText("Input"));
    await user.type(within(dialog).getByLabelText("Input"), "1");
    await user.click(within(dialog).getByRole("button", { name: "Save price" }));

    // Assess
    expect(await within(dialog).findByText(/500 prices, the most allowed/)).toBeTruthy();
  });

  test("an admin deletes a dated price after confirming, and reads who changed what", async () => {
    // Prepare
    const user = userEvent.setup();
    const requests = mockFetch({
      ...priceRoutes("admin"),
      "DELETE /api/prices/ft%3Agpt-4o-mini%3Aacme%3Asupport": { status: 204 },
    });
    renderApp("/settings/prices");
    const changes = await screen.findByRole("region", { name: "Changes" });
    expect(await within(changes).findByText(/Before: input \$0\.25, output \$1\. After: input \$0\.3/)).toBeTruthy();

    // Act
    await user.click(
      screen.getByRole("button", { name: "Delete the price of ft:gpt-4o-mini:acme:support from 2026-06-01" }),
    );
    const confirm = screen.getByRole("dialog", { name: "Delete the price of ft:gpt-4o-mini:acme:support?" });
    await user.click(within(confirm).getByRole("button", { name: "Delete price" }));

    // Assess
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    const deletion = requests.find((request) => request.method === "DELETE");
    expect(deletion?.query.get("effectiveFrom")).toBe("2026-06-01");
  });
});

describe("price-logic", () => {
  test("lists only models with unpriced calls, most first", () => {
    expect(unpricedModels(MODELS).map((model) => model.model)).toEqual(["azure/our-prod-chat", "our-llama"]);
    expect(unpricedModels([])).toEqual([]);
  });

  test("searches every word in model and provider, newest price first, bounded", () => {
    const rows = [...TABLE.items, { ...TABLE.items[0], effectiveFrom: "2025-01-01" } as (typeof TABLE.items)[number]];
    const found = searchPriceTable(rows, "gpt mini", 1);
    expect(found.matched).toBe(2);
    expect(found.rows).toEqual([expect.objectContaining({ model: "gpt-4o-mini", effectiveFrom: "2025-01-01" })]);
    expect(searchPriceTable(rows, "").matched).toBe(4);
  });
});
