/** `wrapTool` without a run at hand: records into whichever run is current when the tool is called. */
import { currentRun } from "./agent-tracker.js";

/**
 * `fn` wrapped to record each call as a `tool_call` (and an `error` event when
 * it throws) on the run current at call time (`ats.trace`, `ats.runWith`);
 * outside any run it simply calls `fn`. Results and errors pass through unchanged.
 */
export function wrapTool<A extends unknown[], R>(toolName: string, fn: (...args: A) => R): (...args: A) => R {
  return function trackedTool(this: unknown, ...args: A): R {
    const run = currentRun();
    if (run === undefined) return fn.apply(this, args);
    return run.wrapTool(toolName, fn).apply(this, args);
  };
}
