/** The cursor secret's item (functions/store/table/cursor-secret-item.ts): what a stored item yields as the HMAC key. */
import { describe, expect, it } from "vitest";
import { cursorSecretOf } from "../../functions/store/table/cursor-secret-item.js";

describe("cursorSecretOf", () => {
  it("decodes the stored secret", () => {
    const key = Buffer.from("0123456789abcdef0123456789abcdef");
    const item = { PK: "SERVICE", SK: "CURSOR_SECRET", entity: "serviceSecret", secret: key.toString("base64") };
    expect(cursorSecretOf(item)).toEqual(key);
  });

  it.each([
    ["no item", undefined],
    ["an empty secret", { entity: "serviceSecret", secret: "" }],
    ["a secret that is not text", { entity: "serviceSecret", secret: 42 }],
    ["another entity's item", { entity: "session", secret: "c2VjcmV0" }],
  ])("gives nothing for %s", (_label, item) => {
    expect(cursorSecretOf(item)).toBeUndefined();
  });
});
