// @vitest-environment jsdom
import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, test } from "vitest";
import { HIGHLIGHTED_TOKENS, JsonTextView, JsonView } from "../../web/src/components/JsonView";
import { tokenizeJson, tokenizeJsonText } from "../../web/src/lib/json-tokens";

afterEach(cleanup);

describe("JSON highlighter", () => {
  test("tokens: keys, strings, numbers, literals, nesting", () => {
    // Prepare / Act
    const tokens = tokenizeJson({ a: [1, true, null], 'b"c': "x" });
    // Assess
    expect(tokens.map((token) => token.text).join("")).toBe(
      JSON.stringify({ a: [1, true, null], 'b"c': "x" }, null, 2),
    );
    expect(tokens.filter((token) => token.kind === "key").map((token) => token.text)).toEqual(['"a"', '"b\\"c"']);
    expect(tokens.filter((token) => token.kind === "number").map((token) => token.text)).toEqual(["1"]);
    expect(tokens.filter((token) => token.kind === "boolean").map((token) => token.text)).toEqual(["true"]);
    expect(tokens.filter((token) => token.kind === "null").map((token) => token.text)).toEqual(["null"]);
  });

  test("text that is not JSON stays one string token", () => {
    expect(tokenizeJsonText("not {json")).toEqual([{ kind: "string", text: "not {json" }]);
  });

  test("data is rendered as text, never as markup", () => {
    // Prepare
    const hostile = {
      "<img src=x onerror=alert(1)>": "<script>alert('x')</script>",
      html: "<b>bold</b>",
    };
    // Act
    const { container } = render(<JsonView value={hostile} label="Tool input" />);
    // Assess
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("b")).toBeNull();
    expect(container.textContent).toContain("<script>alert('x')</script>");
    expect(container.textContent).toContain('"<img src=x onerror=alert(1)>"');
    expect(container.querySelectorAll(".json__key")).toHaveLength(2);
    expect(container.querySelectorAll(".json__string")).toHaveLength(2);
  });

  test("a field of megabytes: the first tokens highlighted, the rest shown whole as text (a page that stays quick)", () => {
    // Prepare
    const rows = Array.from({ length: 5_000 }, (_, index) => ({ row: index, text: "x".repeat(20) }));
    const text = JSON.stringify({ rows });
    // Act
    const { container } = render(<JsonTextView text={text} label="Tool output" />);
    // Assess
    expect(container.querySelectorAll("span").length).toBeLessThanOrEqual(HIGHLIGHTED_TOKENS);
    expect(container.querySelectorAll(".json__key").length).toBeGreaterThan(500);
    expect(JSON.parse(container.textContent ?? "")).toEqual({ rows });
  });
});
