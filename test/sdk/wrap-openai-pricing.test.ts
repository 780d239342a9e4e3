/** The pure parts of `wrapOpenAI`: price lookup, cost, and the summary's limits. */
import { describe, expect, it } from "vitest";
import { costAt, estimateCost, findPrice } from "../../sdk/src/openai/pricing.js";
import { cut, PART_CHARS, SUMMARY_CHARS, summarize } from "../../sdk/src/openai/summary.js";

const PRICES = {
  gpt: { inputPerMillion: 9, outputPerMillion: 9 },
  "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10 },
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6, cachedInputPerMillion: 0.075 },
};
const USAGE = { promptTokens: 2_000_000, completionTokens: 1_000_000, totalTokens: 3_000_000 };

describe("findPrice", () => {
  it("takes the exact name, else the longest key that is a prefix, else nothing", () => {
    expect(findPrice(PRICES, "gpt-4o")).toBe(PRICES["gpt-4o"]);
    expect(findPrice(PRICES, "gpt-4o-mini-2024-07-18")).toBe(PRICES["gpt-4o-mini"]);
    expect(findPrice(PRICES, "gpt-4o-2024-08-06")).toBe(PRICES["gpt-4o"]);
    expect(findPrice(PRICES, "gpt-3.5-turbo")).toBe(PRICES.gpt);
    expect(findPrice(PRICES, "claude-3")).toBeUndefined();
    expect(findPrice(PRICES, "constructor")).toBeUndefined();
    expect(findPrice({ "": { inputPerMillion: 1, outputPerMillion: 1 } }, "any")).toBeUndefined();
    expect(findPrice({ bad: { inputPerMillion: -1, outputPerMillion: 1 } }, "bad")).toBeUndefined();
  });
});

describe("costs", () => {
  it("prices input and output per million, cached prompt tokens at their own rate", () => {
    expect(costAt(PRICES["gpt-4o"], USAGE)).toBe(15);
    expect(costAt(PRICES["gpt-4o-mini"], { ...USAGE, cachedPromptTokens: 1_000_000 })).toBeCloseTo(0.15 + 0.075 + 0.6);
    expect(costAt(PRICES["gpt-4o"], { ...USAGE, cachedPromptTokens: 1_000_000 })).toBe(15);
  });

  it("a cost function wins unless it gives no usable number or throws; no usage or no price means no cost", () => {
    const cost = (model: string) => (model === "mine" ? 0.5 : model === "bad" ? -1 : undefined);
    expect(estimateCost({ cost, prices: PRICES }, ["mine"], USAGE)).toBe(0.5);
    expect(estimateCost({ cost, prices: PRICES }, ["gpt-4o"], USAGE)).toBe(15);
    expect(estimateCost({ cost, prices: PRICES }, ["bad"], USAGE)).toBeUndefined();
    const throwing = () => {
      throw new Error("boom");
    };
    expect(estimateCost({ cost: throwing, prices: PRICES }, ["gpt-4o"], USAGE)).toBe(15);
    expect(estimateCost({ prices: PRICES }, ["gpt-4o"], undefined)).toBeUndefined();
    expect(estimateCost({}, ["gpt-4o"], USAGE)).toBeUndefined();
    expect(estimateCost({ prices: PRICES }, ["unknown-model", "gpt-4o"], USAGE)).toBe(15);
  });
});

describe("summarize", () => {
  it("cuts each part to PART_CHARS and squeezes whitespace", () => {
    const summary = summarize(
      [{ role: "user", text: `a\n\n  b ${"x".repeat(1000)}` }],
      [{ role: "assistant", text: "ok" }],
    );
    const [first, second] = summary.split("\n");
    expect(first?.startsWith("user: a b xxx")).toBe(true);
    expect(first).toHaveLength("user: ".length + PART_CHARS);
    expect(first?.endsWith("…")).toBe(true);
    expect(second).toBe("assistant: ok");
  });

  it("keeps the answer and the latest messages within SUMMARY_CHARS, counting those left out", () => {
    const prompt = Array.from({ length: 40 }, (_, index) => ({
      role: "user",
      text: `message ${index} ${"y".repeat(200)}`,
    }));
    const summary = summarize(prompt, [{ role: "assistant", text: "z".repeat(5000) }]);
    expect(summary.length).toBeLessThanOrEqual(SUMMARY_CHARS);
    const lines = summary.split("\n");
    expect(lines[0]).toMatch(/^… \d+ earlier messages$/);
    expect(lines.at(-2)).toContain("message 39 ");
    expect(lines.at(-1)?.startsWith("assistant: zzz")).toBe(true);
    const omitted = Number(lines[0]?.match(/\d+/)?.[0]);
    expect(omitted + lines.length - 2).toBe(40);
  });

  it("never cuts inside a surrogate pair", () => {
    expect(cut("ab😀cd", 4)).toBe("ab…");
    expect(cut("abc", 3)).toBe("abc");
  });
});
