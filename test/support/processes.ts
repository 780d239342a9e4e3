/** Runs the local tools (`npm start`, the keys CLI) as real child processes. */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { rememberSecretsIn } from "./secrets-ledger.js";

/** Node itself with tsx's loader, so the child's pid is the tool's own process. */
const NODE_WITH_TSX = [process.execPath, "--import", "tsx"] as const;

export interface Completed {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runTool(script: string, args: string[], env: Record<string, string>): Promise<Completed> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE_WITH_TSX[0], [...NODE_WITH_TSX.slice(1), script, ...args], {
      cwd: REPOSITORY_ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      rememberSecretsIn(stdout + stderr);
      resolve({ code, stdout, stderr });
    });
  });
}

export function startTool(
  script: string,
  env: Record<string, string>,
  args: readonly string[] = [],
): { child: ChildProcess; output: () => string } {
  const child = spawn(NODE_WITH_TSX[0], [...NODE_WITH_TSX.slice(1), script, ...args], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, ...env },
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.on("close", () => rememberSecretsIn(output));
  return { child, output: () => output };
}

/** Waits for a file to appear (e.g. local.json, written once the stack is ready). */
export async function waitForFile(path: string, timeoutMs: number, child: ChildProcess): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before writing ${path}`);
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return readFileSync(path, "utf8");
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

export { isAlive } from "../../local/dynamodb-local.js";
