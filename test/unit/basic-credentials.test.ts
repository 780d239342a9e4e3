/**
 * Basic credentials as Langfuse's exporter sends them (functions/auth/basic-credentials.ts): the password is
 * the API key, the user name anything; every malformed header is a 401 with one message that echoes nothing.
 */
import { describe, expect, it } from "vitest";
import { BASIC_INVALID, basicPassword, isBasic } from "../../functions/auth/basic-credentials.js";
import { AtsError } from "../../functions/domain/errors.js";

const basic = (credentials: string) => `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
const KEY = "ats_live_Zq4mT9xW2pR7vN1bY6cH3jL8sD5fG0kA7Hn2Qe";

function refusal(header: string): unknown {
  try {
    basicPassword(header);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("basicPassword", () => {
  it("reads the password after the first colon, whatever the user name (Langfuse's public key)", () => {
    expect(basicPassword(basic(`pk-lf-1234:${KEY}`))).toBe(KEY);
    expect(basicPassword(basic(`:${KEY}`))).toBe(KEY);
    expect(basicPassword(basic(`undefined:${KEY}`))).toBe(KEY);
    expect(basicPassword(basic("user:pass:with:colons"))).toBe("pass:with:colons");
    expect(basicPassword(`basic   ${basic(`ats:${KEY}`).slice(6)}  `)).toBe(KEY);
  });

  it.each([
    ["no credentials", "Basic"],
    ["empty credentials", "Basic "],
    ["malformed base64", "Basic not*base64!"],
    ["base64 without its padding", `Basic ${Buffer.from(`a:${KEY}x`).toString("base64").replace(/=+$/, "")}`],
    ["two tokens", `${basic(`a:${KEY}`)} extra`],
    ["no colon", basic(KEY)],
    ["an empty password", basic("pk-lf-1234:")],
    ["decoded text that is not UTF-8", `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString("base64")}`],
    ["credentials past 1 KiB", basic(`a:${"k".repeat(2000)}`)],
  ])("refuses %s with a 401 that echoes nothing", (_case, header) => {
    const error = refusal(header);
    expect(error).toBeInstanceOf(AtsError);
    expect(error).toMatchObject({ kind: "unauthorized", message: BASIC_INVALID });
  });
});

describe("isBasic", () => {
  it("tells the Basic scheme (any case) from Bearer and bare keys", () => {
    expect(isBasic("Basic abc")).toBe(true);
    expect(isBasic("basic")).toBe(true);
    expect(isBasic(`Bearer ${KEY}`)).toBe(false);
    expect(isBasic(KEY)).toBe(false);
    expect(isBasic("Basically")).toBe(false);
  });
});
