/**
 * Streams: the `Stream` an OpenAI call returns is kept (its class, `controller`,
 * `tee()`, `toReadableStream()`), only its iterator is wrapped, so every way of
 * reading it passes through the wrapper. The wrapper accumulates the answer and
 * the usage and records the call once: when the stream ends, fails, or is left
 * early (`break`, `return`, an abort).
 */
import {
  type CallOutcome,
  type CallState,
  chatOutcome,
  put,
  recordFailure,
  recordOutcome,
  responsesOutcome,
} from "./calls.js";
import { isRecord, type SummaryPart } from "./summary.js";

/** Most characters of streamed text kept for the summary (it shows far fewer). */
const KEPT_CHARS = 4096;

function append(kept: string, more: unknown): string {
  if (typeof more !== "string" || kept.length >= KEPT_CHARS) return kept;
  return (kept + more).slice(0, KEPT_CHARS);
}

/** Reads the items of one stream. */
interface Accumulator {
  /** Takes one item; `false` hides it from the caller. */
  observe(item: unknown): boolean;
  outcome(): CallOutcome;
  /** An error the stream reported in-band (a Responses `error` or `response.failed` event). */
  failure(): string | undefined;
}

class ChatAccumulator implements Accumulator {
  private id: string | undefined;
  private model: string | undefined;
  private content = "";
  private readonly toolCalls = new Map<number, { name: string; args: string }>();
  private finishReason: string | undefined;
  /** The `usage` of the last chunk that had one (with `include_usage`, the last chunk). */
  private usage: Record<string, unknown> | undefined;

  constructor(private readonly hideUsage: boolean) {}

  observe(item: unknown): boolean {
    if (!isRecord(item)) return true;
    if (typeof item.id === "string") this.id ??= item.id;
    if (typeof item.model === "string") this.model ??= item.model;
    const hadUsage = isRecord(item.usage);
    if (hadUsage) this.usage = item.usage as Record<string, unknown>;
    // What include_usage adds: `usage: null` on every chunk and a last chunk with no choices.
    if (this.hideUsage && "usage" in item) delete item.usage;
    const choices = Array.isArray(item.choices) ? item.choices : undefined;
    if (this.hideUsage && hadUsage && choices?.length === 0) return false;
    for (const choice of choices ?? []) {
      if (!isRecord(choice) || (choice.index ?? 0) !== 0) continue;
      if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      this.content = append(this.content, delta.content);
      if (typeof delta.refusal === "string") this.content = append(this.content, delta.refusal);
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) {
          if (!isRecord(call)) continue;
          const index = typeof call.index === "number" ? call.index : 0;
          const entry = this.toolCalls.get(index) ?? { name: "", args: "" };
          const fn = isRecord(call.function) ? call.function : {};
          entry.name = append(entry.name, fn.name);
          entry.args = append(entry.args, fn.arguments);
          this.toolCalls.set(index, entry);
        }
      }
    }
    return true;
  }

  outcome(): CallOutcome {
    const message = {
      role: "assistant",
      content: this.content,
      tool_calls: [...this.toolCalls.values()].map((call) => ({
        function: { name: call.name, arguments: call.args },
      })),
    };
    return chatOutcome({
      id: this.id,
      model: this.model,
      choices: [{ message, finish_reason: this.finishReason }],
      usage: this.usage,
    });
  }

  failure(): string | undefined {
    return undefined;
  }
}

class ResponsesAccumulator implements Accumulator {
  private id: string | undefined;
  private model: string | undefined;
  private text = "";
  private final: Record<string, unknown> | undefined;
  private error: string | undefined;

  observe(item: unknown): boolean {
    if (!isRecord(item)) return true;
    const response = isRecord(item.response) ? item.response : undefined;
    if (response !== undefined) {
      if (typeof response.id === "string") this.id = response.id;
      if (typeof response.model === "string") this.model = response.model;
    }
    switch (item.type) {
      case "response.output_text.delta":
        this.text = append(this.text, item.delta);
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        this.final = response;
        if (item.type === "response.failed") {
          const error = response !== undefined && isRecord(response.error) ? response.error : {};
          this.error = typeof error.message === "string" ? error.message : "The response failed";
        }
        break;
      case "error":
        this.error = typeof item.message === "string" ? item.message : "The stream reported an error";
        break;
    }
    return true;
  }

  outcome(): CallOutcome {
    const outcome = responsesOutcome(this.final ?? { id: this.id, model: this.model });
    if (outcome.answer.length === 0 && this.text !== "") {
      const answer: SummaryPart[] = [{ role: "assistant", text: this.text }];
      outcome.answer = answer;
    }
    return outcome;
  }

  failure(): string | undefined {
    return this.error;
  }
}

type StreamEnd = "completed" | "aborted" | "abandoned" | "failed";

/** Records one stream's call once, however it ends. */
class StreamTracker {
  private ended = false;
  private firstItemAt: number | undefined;

  constructor(
    private readonly call: CallState,
    private readonly accumulator: Accumulator,
    private readonly signal: { readonly aborted: boolean } | undefined,
  ) {}

  observe(item: unknown): boolean {
    this.firstItemAt ??= Date.now();
    try {
      return this.accumulator.observe(item);
    } catch {
      return true;
    }
  }

  finish(end: StreamEnd, error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    try {
      const how = end === "completed" && this.signal?.aborted === true ? "aborted" : end;
      const outcome = this.accumulator.outcome();
      const extra: Record<string, unknown> = { streamEnd: how };
      put(
        extra,
        "timeToFirstChunkMs",
        this.firstItemAt === undefined ? undefined : this.firstItemAt - this.call.startedAt,
      );
      recordOutcome(this.call, outcome, extra);
      const model = outcome.model ?? this.call.requestedModel;
      if (end === "failed") recordFailure(this.call, error, model);
      const failure = this.accumulator.failure();
      if (failure !== undefined && end !== "failed") recordFailure(this.call, new StreamReportedError(failure), model);
    } catch {
      // Recording never fails the agent's stream.
    }
  }

  /** `inner` with every item observed (hidden ones skipped) and the end recorded. */
  wrap(inner: AsyncIterator<unknown>): AsyncIterator<unknown> & AsyncIterable<unknown> {
    const tracker = this;
    const iterator: AsyncIterator<unknown> & AsyncIterable<unknown> = {
      async next(...args: [] | [unknown]): Promise<IteratorResult<unknown>> {
        for (;;) {
          let result: IteratorResult<unknown>;
          try {
            result = await inner.next(...args);
          } catch (error) {
            tracker.finish("failed", error);
            throw error;
          }
          if (result.done === true) {
            tracker.finish("completed");
            return result;
          }
          if (tracker.observe(result.value)) return result;
        }
      },
      async return(value?: unknown): Promise<IteratorResult<unknown>> {
        try {
          return inner.return === undefined ? { done: true, value } : await inner.return(value);
        } finally {
          tracker.finish("abandoned");
        }
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    if (inner.throw !== undefined) {
      const innerThrow = inner.throw.bind(inner);
      iterator.throw = async (error?: unknown) => {
        try {
          return await innerThrow(error);
        } finally {
          tracker.finish("failed", error);
        }
      };
    }
    return iterator;
  }
}

/** An error a stream reported in its events rather than by failing (Responses `error`, `response.failed`). */
export class StreamReportedError extends Error {
  override readonly name = "StreamReportedError";
}

/** Whether `value` is something to iterate with `for await` (an OpenAI `Stream`). */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> & object {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}

/**
 * Instruments `stream` in place (it was made for this call alone): the
 * iterator it hands to `for await`, `tee()` and `toReadableStream()` reports
 * to a tracker. Returns the same object.
 */
export function trackStream<S extends AsyncIterable<unknown> & object>(stream: S, call: CallState): S {
  const accumulator =
    call.api === "chat.completions" ? new ChatAccumulator(call.injectedStreamUsage) : new ResponsesAccumulator();
  const controller = (stream as { controller?: unknown }).controller;
  const signal =
    isRecord(controller) && isRecord(controller.signal) ? (controller.signal as { aborted: boolean }) : undefined;
  const tracker = new StreamTracker(call, accumulator, signal);
  const holder = stream as unknown as { iterator?: unknown };
  const ownIterator = Object.hasOwn(stream, "iterator") ? holder.iterator : undefined;
  if (typeof ownIterator === "function") {
    // openai's Stream: `[Symbol.asyncIterator]()` and `tee()` both call `this.iterator()`.
    holder.iterator = function trackedIterator(this: unknown): AsyncIterator<unknown> {
      return tracker.wrap(ownIterator.call(this) as AsyncIterator<unknown>);
    };
  } else {
    const iterate = stream[Symbol.asyncIterator];
    Object.defineProperty(stream, Symbol.asyncIterator, {
      configurable: true,
      writable: true,
      value: function trackedAsyncIterator(this: unknown): AsyncIterator<unknown> {
        return tracker.wrap(iterate.call(this === undefined ? stream : this));
      },
    });
  }
  return stream;
}
