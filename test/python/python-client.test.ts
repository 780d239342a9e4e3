/**
 * The Python client's suite (`python/tests`, standard-library `unittest`) as part of `npm test`: pure unit tests,
 * tests at the HTTP boundary against fake servers, the package build and `pip install` in a fresh venv, and the
 * integration and fault tests against the real local stack, which the suite starts itself through
 * test/python/stack-controller.ts on this Node. Every test must run: a skip (no venv, no Node ≥ 22) fails here.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPOSITORY_ROOT } from "../../local/settings.js";

const PYTHON = process.env.ATS_TEST_PYTHON ?? "python3";

function runSuite(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ["-m", "unittest", "discover", "-s", "tests", "-t", "."], {
      cwd: join(REPOSITORY_ROOT, "python"),
      env: { ...process.env, PYTHONPATH: "src", ATS_TEST_NODE: process.execPath, PYTHONDONTWRITEBYTECODE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", (error) =>
      reject(new Error(`${PYTHON} could not be started (${error.message}): install Python ≥ 3.9`)),
    );
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the Python client (python/tests)", () => {
  it("passes every test, none skipped", async () => {
    const { code, output } = await runSuite();
    const ran = /^Ran (\d+) tests? in ([\d.]+)s$/m.exec(output);
    const verdict = output.trim().split("\n").at(-1) ?? "";
    for (const line of output.split("\n").filter((text) => text.startsWith("[faults]"))) console.log(line);
    expect(code, output.slice(-6000)).toBe(0);
    expect(verdict, output.slice(-6000)).toBe("OK");
    expect(Number(ran?.[1])).toBeGreaterThanOrEqual(60);
  }, 300_000);
});
