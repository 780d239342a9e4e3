/**
 * docs/otel.md's curl example, run as pasted (bash, curl, the two variables the README exports) against the
 * local API, twice: both exports are answered `{}`, every span recorded — with fixed times it was `200` with
 * every span rejected as older than retention (issue 30).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { call, createTestKey, startTestApi, type TestKey } from "../support/fixtures.js";

const DOC = readFileSync(join(REPOSITORY_ROOT, "docs/otel.md"), "utf8");
const SNIPPET = /### curl \(OTLP JSON\)[\s\S]*?```sh\n([\s\S]*?)```/.exec(DOC)?.[1] ?? "";

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
});
afterAll(() => api.close());

/** Runs the snippet in bash, asynchronously: the API it calls runs in this process. */
function runSnippet(): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-c", SNIPPET], {
      env: { PATH: process.env.PATH ?? "", ATS_BASE_URL: api.url, ATS_API_KEY: owner.key },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", () => resolve({ stdout, stderr }));
  });
}

describe("docs/otel.md's curl example", () => {
  it("records its trace as pasted, and again when pasted a second time: answered {} both times", async () => {
    expect(SNIPPET).toContain("curl");

    const first = await runSnippet();
    const second = await runSnippet();

    expect(first.stderr).toBe("");
    expect(JSON.parse(first.stdout)).toEqual({});
    expect(JSON.parse(second.stdout)).toEqual({});
    const sessions = await call(api, "GET", "/api/sdk/sessions?agentName=travel-planner", { key: owner.key });
    expect(sessions.status, sessions.text).toBe(200);
    expect(sessions.body.items).toHaveLength(2);
  });
});
