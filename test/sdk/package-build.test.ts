/**
 * The published shape of `@ats/client`: `npm run sdk:build` produces one ESM and
 * one CJS bundle with type declarations and no dependency, and both bundles
 * record a run against the local stack under the project's Node and, where the
 * machine has one, an older system Node (≥ 20).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalApi } from "../../local/http-adapter.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { call, createTestKey, startTestApi, type TestKey } from "../support/fixtures.js";

const SDK = join(REPOSITORY_ROOT, "sdk");
const DIST = join(SDK, "dist");

let api: LocalApi;
let owner: TestKey;

beforeAll(async () => {
  execFileSync(process.execPath, [join(SDK, "scripts/build.mjs")], { cwd: SDK, stdio: "pipe" });
  api = await startTestApi();
  owner = await createTestKey();
}, 120_000);
afterAll(() => api.close());

/** The Node binaries to try: this one, and the system's if it is another version. */
function nodes(): string[] {
  const found = [process.execPath];
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout.trim();
    if (version !== process.version && /^v(2\d|[3-9]\d)\./.test(version)) found.push(candidate);
  }
  return found;
}

function runNode(
  node: string,
  script: string,
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ["-e", script], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", () => resolve({ stdout, stderr }));
  });
}

const recordOneRun = (load: string) => `
${load}
const ats = new AgentTracker({ apiKey: process.env.ATS_API_KEY, baseUrl: process.env.ATS_BASE_URL, onError: (e) => console.error(e.message) });
let sessionId;
ats.trace({ name: "from the bundle", agentName: "bundle-check", userId: process.version }, async (run) => {
  sessionId = run.id;
  run.toolCall({ toolName: "search", toolInput: { q: "x".repeat(3000) } });
  run.decision({ reasoning: "done", confidence: 1 });
}).then(() => ats.shutdown()).then((stats) => console.log(JSON.stringify({ sessionId, stats })));
`;

describe("the built package", () => {
  it("has ESM, CJS and declarations, no dependencies, and imports nothing at load time", () => {
    const manifest = JSON.parse(readFileSync(join(SDK, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.name).toBe("@ats/client");
    expect(manifest.dependencies).toBeUndefined();
    for (const file of ["index.js", "index.cjs", "types/index.d.ts"])
      expect(existsSync(join(DIST, file)), file).toBe(true);
    const esm = readFileSync(join(DIST, "index.js"), "utf8");
    expect(esm).not.toMatch(/^\s*import\s/m);
    expect(esm).not.toMatch(/\brequire\(/);
    const cjs = readFileSync(join(DIST, "index.cjs"), "utf8");
    expect(cjs).not.toMatch(/\brequire\(/);
    console.log(
      `sizes: index.js ${statSync(join(DIST, "index.js")).size} B, index.cjs ${statSync(join(DIST, "index.cjs")).size} B`,
    );
  });

  it("a script that records and simply returns (no flush, no shutdown) still delivers everything", async () => {
    const script = `
const { AgentTracker } = require(${JSON.stringify(join(DIST, "index.cjs"))});
const ats = new AgentTracker({ apiKey: process.env.ATS_API_KEY, baseUrl: process.env.ATS_BASE_URL, flushIntervalMs: 60000 });
ats.startSession({ name: "fire and exit", agentName: "exit-check", userId: "u" }).then((run) => {
  for (let i = 0; i < 150; i++) run.toolCall({ toolName: "t", toolInput: { i } });
  run.end();
  console.log(run.id);
});`;
    const child = await runNode(process.execPath, script, {
      PATH: process.env.PATH ?? "",
      ATS_API_KEY: owner.key,
      ATS_BASE_URL: api.url,
    });
    expect(child.stderr).toBe("");
    const session = await call(api, "GET", `/api/sdk/sessions/${child.stdout.trim()}`, { key: owner.key });
    expect(session.body).toMatchObject({ status: "completed", eventCount: 150 });
  });

  for (const node of nodes()) {
    for (const [format, load] of [
      ["CJS", `const { AgentTracker } = require(${JSON.stringify(join(DIST, "index.cjs"))});`],
      ["ESM", `const { AgentTracker } = await import(${JSON.stringify(join(DIST, "index.js"))});`],
    ] as const) {
      it(`${format} under ${node}: records a run that reads back`, async () => {
        const script = format === "CJS" ? recordOneRun(load) : `(async () => { ${recordOneRun(load)} })();`;
        // Asynchronously: the API serving the child runs in this process.
        const child = await runNode(node, script, {
          PATH: process.env.PATH ?? "",
          ATS_API_KEY: owner.key,
          ATS_BASE_URL: api.url,
        });
        expect(child.stderr).toBe("");
        const { sessionId, stats } = JSON.parse(child.stdout) as { sessionId: string; stats: Record<string, number> };
        expect(stats).toMatchObject({ eventsDelivered: 2, eventsFailed: 0, sessionsCreated: 1, sessionsEnded: 1 });
        expect(stats.bytesSent).toBeLessThan(stats.bytesBeforeCompression as number);
        const session = await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key });
        expect(session.body).toMatchObject({ status: "completed", eventCount: 2, agentName: "bundle-check" });
      });
    }
  }

  it("`npm run package` makes the clients' packages (npm tarball, Python wheel) with their licence, installable outside the repository, offline (issue 24)", async () => {
    // Prepare: a project of the user's own, elsewhere on the machine.
    const packed = execFileSync("npm", ["run", "--silent", "package"], { cwd: REPOSITORY_ROOT, encoding: "utf8" });
    const tarball = packed
      .trim()
      .split("\n")
      .find((line) => /ats-client-[\d.]+\.tgz$/.test(line));
    const project = mkdtempSync(join(tmpdir(), "ats-user-project-"));
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-agent", private: true, type: "module" }));

    // Act
    execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", String(tarball)], {
      cwd: project,
      stdio: "pipe",
    });
    writeFileSync(join(project, "agent.mjs"), recordOneRun('import { AgentTracker } from "@ats/client";'));
    const child = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      const run = spawn(process.execPath, ["agent.mjs"], {
        cwd: project,
        env: { PATH: process.env.PATH ?? "", ATS_API_KEY: owner.key, ATS_BASE_URL: api.url },
      });
      let stdout = "";
      let stderr = "";
      run.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      run.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      run.on("error", reject);
      run.on("close", () => resolve({ stdout, stderr }));
    });

    // Assess
    const installed = join(project, "node_modules", "@ats", "client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.license).toBe("Apache-2.0");
    for (const file of ["LICENSE", "README.md", "dist/index.js", "dist/index.cjs", "dist/types/index.d.ts"])
      expect(existsSync(join(installed, file)), file).toBe(true);
    expect(child.stderr).toBe("");
    const { sessionId } = JSON.parse(child.stdout) as { sessionId: string };
    const session = await call(api, "GET", `/api/sdk/sessions/${sessionId}`, { key: owner.key });
    expect(session.body).toMatchObject({ status: "completed", eventCount: 2 });

    // The same command built the Python client's wheel: pip installs it in a fresh environment without an index.
    const wheel = packed
      .trim()
      .split("\n")
      .find((line) => /ats_client-[\d.]+-py3-none-any\.whl$/.test(line));
    const venv = join(project, "venv");
    execFileSync("python3", ["-m", "venv", venv], { stdio: "pipe" });
    execFileSync(join(venv, "bin", "pip"), ["install", "--quiet", "--no-index", String(wheel)], { stdio: "pipe" });
    const shown = execFileSync(join(venv, "bin", "pip"), ["show", "ats-client"], { encoding: "utf8" });
    const imported = execFileSync(join(venv, "bin", "python"), ["-c", "import ats; print(ats.AgentTracker.__name__)"], {
      encoding: "utf8",
    });
    expect(shown).toMatch(/^License: Apache-2\.0$/m);
    expect(imported.trim()).toBe("AgentTracker");
  }, 180_000);
});
