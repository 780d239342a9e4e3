/**
 * Keeps `web/dist` up to date for `npm start`: the console is built (with
 * `npm run web:build`, on the Node that runs `npm start`) when
 * `web/dist/index.html` is missing or older than any of its sources.
 * Concurrent starts (parallel test files) build once: the first takes a lock,
 * the others wait for it and find the build fresh.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive } from "./dynamodb-local.js";

const WEB = "web";
/** What the build reads besides `node_modules`: a change to any of them makes `web/dist` stale. */
const SOURCES = ["src", "public", "index.html", "vite.config.ts", "package.json", "tsconfig.json"];
const LOCK_WAIT_MS = 5 * 60_000;

export type ConsoleBuild =
  | { readonly state: "fresh" | "built"; readonly directory: string }
  | { readonly state: "failed"; readonly directory: string; readonly output: string };

/** The newest modification time under `path` (a file or a directory), 0 when it does not exist. */
function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)));
  return newest;
}

/** Why `web/dist` must be (re)built, or `undefined` when it is up to date. */
export function staleReason(root: string): string | undefined {
  const index = join(root, WEB, "dist", "index.html");
  if (!existsSync(index)) return "web/dist is missing";
  const built = statSync(index).mtimeMs;
  const changed = SOURCES.find((source) => newestChange(join(root, WEB, source)) > built);
  return changed === undefined ? undefined : `web/${changed} changed since the last build`;
}

/** `npm run web:build` with the running Node (npm's own CLI when `npm start` launched us). */
function runBuild(root: string): Promise<{ code: number | null; output: string }> {
  const npmCli = process.env.npm_execpath;
  const [command, args] =
    npmCli?.endsWith(".js") === true ? [process.execPath, [npmCli, "run", "web:build"]] : ["npm", ["run", "web:build"]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** Takes the build lock (a directory holding the owner's pid); a lock whose owner died is taken over. */
async function acquireLock(lock: string): Promise<() => void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(join(lock, "pid"), "utf8"));
    } catch {
      // Just created by its owner, pid not written yet: wait.
    }
    if (Number.isInteger(owner) && !isAlive(owner)) rmSync(lock, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`${lock} is held by process ${owner} for too long`);
    else await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Builds the console when `web/dist` is stale, saying so in one line
 * (`announce`). A failed build is reported, not thrown: the API still starts.
 */
export async function ensureConsoleBuilt(
  root: string,
  announce: (line: string) => void = console.log,
): Promise<ConsoleBuild> {
  const directory = join(root, WEB, "dist");
  if (staleReason(root) === undefined) return { state: "fresh", directory };
  const lockName = `ats-console-build-${createHash("sha256").update(root).digest("hex").slice(0, 12)}.lock`;
  const release = await acquireLock(join(tmpdir(), lockName));
  try {
    const reason = staleReason(root);
    if (reason === undefined) return { state: "fresh", directory };
    announce(`Building the console (${reason}): npm run web:build …`);
    const { code, output } = await runBuild(root);
    if (code !== 0) return { state: "failed", directory, output };
    return { state: "built", directory };
  } finally {
    release();
  }
}
