/**
 * The few things the client needs from its host, found at run time so that one
 * bundle works in Node ≥ 20.16, Lambda and browsers: no static import of a
 * Node built-in, no dependency.
 */

interface NodeProcessLike {
  readonly env?: Record<string, string | undefined>;
  getBuiltinModule?(id: string): unknown;
  once?(event: string, listener: () => void): unknown;
  on?(event: string, listener: () => void): unknown;
  off?(event: string, listener: () => void): unknown;
}

function nodeProcess(): NodeProcessLike | undefined {
  const candidate = (globalThis as { process?: NodeProcessLike }).process;
  return typeof candidate === "object" && candidate !== null ? candidate : undefined;
}

/** An environment variable in Node or Lambda; `undefined` in a browser. */
export function environmentVariable(name: string): string | undefined {
  const value = nodeProcess()?.env?.[name];
  return value === undefined || value === "" ? undefined : value;
}

/** A Node built-in module (`node:zlib`, `node:async_hooks`), or `undefined` where there is none. */
export function builtinModule<T>(id: string): T | undefined {
  const load = nodeProcess()?.getBuiltinModule;
  if (typeof load !== "function") return undefined;
  try {
    return load.call(nodeProcess(), id) as T | undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `listener` when Node's event loop is about to empty (`beforeExit`), so a
 * short script's last events are sent; returns the function that removes it.
 * A no-op outside Node.
 */
export function onProcessIdle(listener: () => void): () => void {
  const process = nodeProcess();
  if (typeof process?.on !== "function" || typeof process.off !== "function") return () => {};
  process.on("beforeExit", listener);
  return () => process.off?.("beforeExit", listener);
}

/** A timer that does not keep Node alive on its own (the `beforeExit` hook sends what is left). */
export function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
  const handle = timer as unknown as { unref?: () => void };
  if (typeof handle.unref === "function") handle.unref();
}
