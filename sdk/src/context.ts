/**
 * The current run, carried through `await`s by Node's AsyncLocalStorage where
 * the host has it (Node, Lambda, Deno, Bun). In a browser there is none:
 * `currentRun()` is then always `undefined` and runs are passed explicitly.
 */
import { builtinModule } from "./platform.js";

interface Storage<T> {
  getStore(): T | undefined;
  run<R>(store: T, callback: () => R): R;
}

interface AsyncHooksLike {
  AsyncLocalStorage: new <T>() => Storage<T>;
}

let storage: Storage<unknown> | null | undefined;

function contextStorage(): Storage<unknown> | undefined {
  if (storage === undefined) {
    const hooks = builtinModule<AsyncHooksLike>("node:async_hooks");
    storage = hooks === undefined ? null : new hooks.AsyncLocalStorage<unknown>();
  }
  return storage ?? undefined;
}

/** Whether runs propagate implicitly on this host. */
export function hasAsyncContext(): boolean {
  return contextStorage() !== undefined;
}

/** Calls `callback` with `value` as the current context (just calls it where there is no AsyncLocalStorage). */
export function runInContext<T, R>(value: T, callback: () => R): R {
  const store = contextStorage();
  return store === undefined ? callback() : store.run(value, callback);
}

/** The value of the innermost `runInContext` around the caller. */
export function contextValue(): unknown {
  return contextStorage()?.getStore();
}
