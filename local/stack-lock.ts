/**
 * One `npm start` per data directory and per port (issue 30): a second stack on a DATA_DIR or PORT in use
 * used to wait 10 s for DynamoDB Local and die of `EADDRINUSE` and a stream error. Before anything starts,
 * the stack claims `$DATA_DIR/stack.json` (created exclusively; it names the running stack's pid and URL) and
 * checks that its port is free; either taken, it stops at once with one line saying where the other stack
 * runs and how to start another. A claim whose process is gone (a stack killed with SIGKILL) is taken over.
 */
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { isAlive } from "./dynamodb-local.js";
import type { LocalSettings } from "./settings.js";

/** What a running stack writes in its data directory. */
interface StackClaim {
  readonly pid: number;
  /** The API's URL (its planned one until the API listens). */
  readonly apiUrl: string;
  readonly dataDirectory: string;
}

/** A stack that cannot start here, with the line that says why. */
export class StackInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StackInUseError";
  }
}

export interface StackLock {
  /** Records the API's URL once it listens (a second start names it). */
  announce(apiUrl: string): void;
  /** Gives the data directory up (at shutdown; also on exit). */
  release(): void;
}

function claimPath(settings: LocalSettings): string {
  return join(settings.dataDirectory, "stack.json");
}

function readClaim(path: string): StackClaim | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as StackClaim;
  } catch {
    return undefined;
  }
}

function advice(settings: LocalSettings): string {
  const otherPort = settings.port === 0 ? 0 : settings.port + 1;
  return `PORT=${otherPort} DATA_DIR=${settings.dataDirectory}-${otherPort} npm start`;
}

/** Whether nothing listens on the port of 127.0.0.1 (port 0: any free port, always). */
function portIsFree(port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

function writeClaim(path: string, claim: StackClaim, exclusive: boolean): boolean {
  try {
    writeFileSync(path, `${JSON.stringify(claim, null, 2)}\n`, exclusive ? { flag: "wx" } : {});
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Claims the data directory and checks the port, or throws StackInUseError naming the stack in the way. */
export async function claimStack(settings: LocalSettings): Promise<StackLock> {
  const path = claimPath(settings);
  const claim: StackClaim = {
    pid: process.pid,
    apiUrl: `http://127.0.0.1:${settings.port}`,
    dataDirectory: settings.dataDirectory,
  };
  if (!writeClaim(path, claim, true)) {
    const running = readClaim(path);
    if (running !== undefined && running.pid !== process.pid && isAlive(running.pid)) {
      throw new StackInUseError(
        `A stack is already running on ${running.apiUrl} (pid ${running.pid}, data in ${running.dataDirectory}): ` +
          `stop it (kill ${running.pid}) or start another with ${advice(settings)}`,
      );
    }
    writeClaim(path, claim, false); // the stack that wrote it is gone
  }
  let released = false;
  function release(): void {
    if (released) return;
    released = true;
    if (readClaim(path)?.pid === process.pid) unlinkSync(path);
  }
  process.once("exit", release);
  if (!(await portIsFree(settings.port))) {
    release();
    throw new StackInUseError(
      `Port ${settings.port} is already in use (${claim.apiUrl}), by another stack with its own DATA_DIR or another ` +
        `program: stop it or start with ${advice(settings)}`,
    );
  }
  return {
    announce(apiUrl: string): void {
      writeClaim(path, { ...claim, apiUrl }, false);
    },
    release,
  };
}
