/**
 * `wrapOpenAI(client)`: the `openai` package's client, recording each chat
 * completion and Responses API call into the current run. No dependency on
 * `openai`: the client is read through its structure.
 */
import { currentRun } from "../agent-tracker.js";
import {
  type CallState,
  chatOutcome,
  type OpenAIApi,
  recordFailure,
  recordOutcome,
  responsesOutcome,
  startCall,
} from "./calls.js";
import type { WrapOpenAIOptions } from "./options.js";
import { isAsyncIterable, trackStream } from "./streams.js";

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/** The objects below the client that lead to a recorded `create`, by path. */
const CHILDREN: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "": { chat: "chat", responses: "responses" },
  chat: { completions: "chat.completions" },
};
const RECORDED: Readonly<Record<string, OpenAIApi>> = {
  "chat.completions": "chat.completions",
  responses: "responses",
};

function isObject(value: unknown): value is object {
  return (typeof value === "object" || typeof value === "function") && value !== null;
}

/** Whether a proxy must hand out the target's own value as it is (a non-configurable, read-only property). */
function isFrozenProperty(target: object, key: PropertyKey): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  return descriptor !== undefined && descriptor.configurable === false && descriptor.writable === false;
}

/**
 * Returns `client` wrapped so that every `client.chat.completions.create(…)`
 * and `client.responses.create(…)` — streaming included — is recorded in the
 * run current at the time of the call (`ats.trace`, `ats.runWith`), or in
 * `options.run`:
 *
 * - one `llm_decision` event per call: its `model` (the one the response
 *   names, e.g. `gpt-4o-mini-2024-07-18`) and `usage` (OpenAI's counts:
 *   prompt, completion, total, cached prompt tokens as `cacheReadTokens`,
 *   reasoning tokens as `reasoningTokens`), from which the service prices the
 *   call; `estimatedCost` only when `options.cost` or `options.prices` (your
 *   override) gives one; a summary of the messages and the answer as
 *   `reasoning` (unless `captureContent: false`); and in `toolInput`/
 *   `toolOutput` the model (and `requestedModel` when it differs), the API,
 *   temperature, max tokens, message count, tool names, token counts,
 *   duration, finish reason and response id;
 * - the tokens add to the run's totals, sent with the session's end;
 * - a call that fails is recorded as an `error` event (its message, the model,
 *   HTTP status and request id) and the original error is re-thrown unchanged.
 *
 * The wrapper is a `Proxy`: the caller's client is not modified, has the same
 * type, and everything else (other resources, `withOptions`, which returns a
 * wrapped client) passes through. The promise a call returns keeps working as
 * openai's `APIPromise` (`await`, `.withResponse()`; `.asResponse()` hands over
 * the raw body unread and so records nothing).
 *
 * Streams (`stream: true`) come back as the same `Stream` object with only its
 * iterator wrapped, so `for await`, `.tee()`, `.toReadableStream()` and
 * `.controller` work as before. The call is recorded when the stream ends, or
 * with what was seen when it fails (plus an `error` event) or is left early
 * (`break`, `controller.abort()`); a stream never iterated is not recorded.
 * For chat streams see `includeStreamUsage`: by default the wrapper asks for
 * usage and hides what that adds.
 *
 * Outside any run (and without `options.run`) calls pass through unrecorded.
 * Recording never throws into the caller. Not recorded: `chat.completions.parse`,
 * `.stream()`, `.runTools()` and `responses.parse`/`.stream()` (openai's
 * helpers that call the unwrapped client internally).
 *
 * ```ts
 * const openai = wrapOpenAI(new OpenAI()); // priced by the service from model and usage
 * // Your own price wins where you give one:
 * // wrapOpenAI(new OpenAI(), { prices: { "ft:gpt-4o-mini:acme": { inputPerMillion: 0.3, outputPerMillion: 1.2 } } });
 * await ats.trace({ name: "Answer", agentName: "support-bot", userId: "u-1" }, async () => {
 *   await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] });
 * });
 * ```
 */
export function wrapOpenAI<T extends object>(client: T, options: WrapOpenAIOptions = {}): T {
  return wrapObject(client, "", { ...options });
}

function wrapObject<T extends object>(target: T, path: string, options: WrapOpenAIOptions): T {
  const children = CHILDREN[path] ?? {};
  const api = RECORDED[path];
  const cache = new Map<PropertyKey, { source: unknown; value: unknown }>();
  const cached = (key: PropertyKey, source: unknown, make: () => unknown): unknown => {
    const hit = cache.get(key);
    if (hit !== undefined && hit.source === source) return hit.value;
    const value = make();
    cache.set(key, { source, value });
    return value;
  };
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (isFrozenProperty(object, key)) return value;
      if (typeof key === "string") {
        const child = children[key];
        if (child !== undefined && isObject(value)) return cached(key, value, () => wrapObject(value, child, options));
        if (api !== undefined && key === "create" && typeof value === "function") {
          return cached(key, value, () => recordedCreate(api, value as AnyFunction, object, options));
        }
        if (path === "" && key === "withOptions" && typeof value === "function") {
          return cached(
            key,
            value,
            () =>
              function withOptions(...args: unknown[]): unknown {
                const derived = (value as AnyFunction).apply(object, args);
                return isObject(derived) ? wrapObject(derived, "", options) : derived;
              },
          );
        }
      }
      // Methods run on the real object: openai's classes keep `#private` fields a proxy does not have.
      if (typeof value === "function") return cached(key, value, () => (value as AnyFunction).bind(object));
      return value;
    },
  });
}

/** `create` recording each call into the run current when it is made. */
function recordedCreate(api: OpenAIApi, create: AnyFunction, owner: object, options: WrapOpenAIOptions): AnyFunction {
  return function recordedCreateCall(this: unknown, ...args: unknown[]): unknown {
    const run = options.run ?? currentRun();
    if (run === undefined) return create.apply(owner, args);
    let call: CallState;
    try {
      call = startCall(api, args[0], run, options);
    } catch {
      return create.apply(owner, args);
    }
    const sentArgs = call.body === args[0] ? args : [call.body, ...args.slice(1)];
    let result: unknown;
    try {
      result = create.apply(owner, sentArgs);
    } catch (error) {
      recordFailure(call, error);
      throw error;
    }
    return isObject(result) && typeof (result as PromiseLike<unknown>).then === "function"
      ? trackPromise(result as PromiseLike<unknown> & object, call)
      : result;
  };
}

/** What a call resolved to: a stream is instrumented and returned, a response recorded. */
function settleValue(value: unknown, call: CallState): unknown {
  if (isAsyncIterable(value)) return trackStream(value, call);
  recordOutcome(call, call.api === "chat.completions" ? chatOutcome(value) : responsesOutcome(value));
  return value;
}

/**
 * The call's promise (openai's `APIPromise`) behind a proxy: `then`, `catch`,
 * `finally` and `withResponse` go through one recorded settlement; anything
 * else is the original's. The response is parsed once (`APIPromise` caches it).
 */
function trackPromise<P extends PromiseLike<unknown> & object>(promise: P, call: CallState): P {
  let settled: Promise<unknown> | undefined;
  const settle = (): Promise<unknown> => {
    settled ??= Promise.resolve(
      promise.then(
        (value) => settleValue(value, call),
        (error: unknown) => {
          recordFailure(call, error);
          throw error;
        },
      ),
    );
    return settled;
  };
  // A thenable by design: `await` on the wrapped promise must go through the recording settlement.
  const trackedThen = (onFulfilled?: (value: unknown) => unknown, onRejected?: (reason: unknown) => unknown) =>
    settle().then(onFulfilled, onRejected);
  const trackedCatch = (onRejected?: (reason: unknown) => unknown) => settle().catch(onRejected);
  const trackedFinally = (onFinally?: () => void) => settle().finally(onFinally);
  const withResponse = (promise as { withResponse?: unknown }).withResponse;
  const trackedWithResponse = async (): Promise<unknown> => {
    const [data, raw] = await Promise.all([settle(), (withResponse as AnyFunction).call(promise)]);
    return isObject(raw) ? { ...raw, data } : raw;
  };
  const overridden = (key: PropertyKey): unknown => {
    switch (key) {
      case "then":
        return trackedThen;
      case "catch":
        return trackedCatch;
      case "finally":
        return trackedFinally;
      case "withResponse":
        return typeof withResponse === "function" ? trackedWithResponse : undefined;
      default:
        return undefined;
    }
  };
  return new Proxy(promise, {
    get(object, key) {
      const own = overridden(key);
      if (own !== undefined) return own;
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value === "function" && !isFrozenProperty(object, key)) return (value as AnyFunction).bind(object);
      return value;
    },
  });
}
