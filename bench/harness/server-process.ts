/** Starts bench/server-child.ts (the local API) as a child process and talks to it over IPC. */
import { type ChildProcess, fork } from "node:child_process";
import { join } from "node:path";
import { REPOSITORY_ROOT } from "../../local/settings.js";

export interface ServerMemory {
  readonly rss: number;
  readonly heapUsed: number;
  /** WARN/ERROR log lines the server wrote so far. */
  readonly problems: number;
}

export interface BenchServer {
  readonly url: string;
  readonly pid: number;
  /** Memory right after the server started listening (before any request). */
  readonly startMemory: ServerMemory;
  memory(): Promise<ServerMemory>;
  stop(): Promise<void>;
}

type ChildMessage =
  | { readonly type: "ready"; readonly url: string; readonly rss: number; readonly heapUsed: number }
  | ({ readonly type: "memory" } & ServerMemory);

function nextMessage<T extends ChildMessage["type"]>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanUp();
      reject(new Error(`bench server sent no "${type}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message: ChildMessage) => {
      if (message.type !== type) return;
      cleanUp();
      resolve(message as Extract<ChildMessage, { type: T }>);
    };
    const onExit = (code: number | null) => {
      cleanUp();
      reject(new Error(`bench server exited with code ${code} while waiting for "${type}"`));
    };
    const cleanUp = () => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

/** `env` must already point at DynamoDB Local and the local S3. */
export async function startBenchServer(env: NodeJS.ProcessEnv): Promise<BenchServer> {
  const child = fork(join(REPOSITORY_ROOT, "bench", "server-child.ts"), [], {
    cwd: REPOSITORY_ROOT,
    env,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("could not start the bench server");
  const killNow = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  process.once("exit", killNow);

  const stop = async () => {
    process.removeListener("exit", killNow);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.send({ type: "stop" });
    const timer = setTimeout(killNow, 5_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    const ready = await nextMessage(child, "ready", 60_000);
    return {
      url: ready.url,
      pid,
      startMemory: { rss: ready.rss, heapUsed: ready.heapUsed, problems: 0 },
      async memory() {
        const reply = nextMessage(child, "memory", 10_000);
        child.send({ type: "memory" });
        const { rss, heapUsed, problems } = await reply;
        return { rss, heapUsed, problems };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
