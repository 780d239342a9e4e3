/**
 * The README's client scripts (step 5), run as pasted: each prints `recorded <id>` only when the client's own
 * report says everything was delivered, and otherwise what happened — the service's answer and the URL for a
 * wrong key, the network error and the URL for a dead one (issue 30). The TypeScript script runs on the
 * client's sources (`@ats/client` pointed at sdk/src), the Python one on python/src.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../functions/domain/api-key.js";
import type { LocalApi } from "../../local/http-adapter.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { call, createTestKey, startTestApi, type TestKey } from "../support/fixtures.js";

const README = readFileSync(join(REPOSITORY_ROOT, "README.md"), "utf8");

function snippet(pattern: RegExp): string {
  const found = pattern.exec(README)?.[1];
  if (found === undefined) throw new Error(`README.md has no snippet matching ${pattern}`);
  return found;
}

const typescriptScript = snippet(/```js\n(\/\/ agent\.mjs[\s\S]*?)```/).replace(
  '"@ats/client"',
  JSON.stringify(join(REPOSITORY_ROOT, "sdk/src/index.ts")),
);
const pythonScript = snippet(/```python\n(from ats import AgentTracker\n[\s\S]*?)```/);

const project = mkdtempSync(join(tmpdir(), "ats-readme-"));
writeFileSync(join(project, "agent.mjs"), typescriptScript);
writeFileSync(join(project, "agent.py"), pythonScript);

let api: LocalApi;
let owner: TestKey;
let deadUrl: string;

/** A URL nothing listens on: a port this process held a moment ago, closed. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}`;
}

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestKey();
  deadUrl = await closedPortUrl();
});
afterAll(() => api.close());

/** Runs a script in the user's project, asynchronously: the API it calls runs in this process. */
function run(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: project, env: { PATH: process.env.PATH ?? "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ stdout, stderr, code }));
  });
}

const CLIENTS = [
  { client: "TypeScript", command: join(REPOSITORY_ROOT, "node_modules/.bin/tsx"), args: ["agent.mjs"], env: {} },
  {
    client: "Python",
    command: "python3",
    args: ["agent.py"],
    env: { PYTHONPATH: join(REPOSITORY_ROOT, "python/src") },
  },
] as const;

describe.each(CLIENTS)("the README's $client script", ({ command, args, env }) => {
  it("prints `recorded <id>` for a run the service stored", async () => {
    const result = await run(command, args, { ...env, ATS_API_KEY: owner.key, ATS_BASE_URL: api.url });

    expect(result.stderr).toBe("");
    const id = /^recorded (ses_\w+)\n$/.exec(result.stdout)?.[1];
    expect(id, result.stdout).toBeDefined();
    const session = await call(api, "GET", `/api/sdk/sessions/${id}`, { key: owner.key });
    expect(session.status).toBe(200);
  });

  it("prints `not recorded` with the service's 401 and the URL for a key it does not know", async () => {
    const result = await run(command, args, {
      ...env,
      ATS_API_KEY: generateApiKey("live").plaintext,
      ATS_BASE_URL: api.url,
    });

    expect(result.stdout).toMatch(/^not recorded: /);
    expect(result.stdout).not.toContain("recorded ses_");
    expect(result.stdout).toContain(`${api.url}/api/sdk/sessions`);
    expect(result.stdout).toContain("401 Invalid API key: the key is malformed, unknown, expired or revoked");
  });

  it("prints `not recorded` with the network error and the URL when nothing answers there", async () => {
    const result = await run(command, args, { ...env, ATS_API_KEY: owner.key, ATS_BASE_URL: deadUrl });

    expect(result.stdout).toMatch(/^not recorded: /);
    expect(result.stdout).not.toContain("recorded ses_");
    expect(result.stdout).toContain(`${deadUrl}/api/sdk/sessions`);
    expect(result.stdout).toMatch(/ECONNREFUSED|Connection refused|Connect call failed/);
  });
});
