/**
 * Replays one planned session through the SDK, each event at its scripted time (`occurredAt`, a timed step's start)
 * with its scripted `durationMs` (as `wrapTool` and `wrapOpenAI` record them; also in `toolOutput`, as they keep it).
 */
import { AgentTracker, type AtsError } from "../../sdk/src/index.js";
import { DemoSetupError, type DemoTarget } from "./connection.js";
import type { DemoSession } from "./scenario.js";

/** Records `session` and queues its end; returns the session id the client minted. */
export async function recordSession(ats: AgentTracker, session: DemoSession): Promise<string> {
  const run = await ats.startSession({
    name: session.name,
    agentName: session.agentName,
    userId: session.userId,
    metadata: session.metadata,
    startedAt: new Date(session.startedAtMs),
  });
  for (const step of session.steps) {
    const occurredAt = new Date(session.startedAtMs + step.atMs);
    switch (step.kind) {
      case "llm":
        run.llmCall({
          model: step.model,
          reasoning: step.reasoning,
          promptTokens: step.promptTokens,
          completionTokens: step.completionTokens,
          estimatedCost: step.estimatedCost,
          durationMs: step.durationMs,
          occurredAt,
        });
        break;
      case "decision":
        run.decision({
          reasoning: step.reasoning,
          alternativesConsidered: [...step.alternatives],
          confidence: step.confidence,
          occurredAt,
        });
        break;
      case "tool":
        run.toolCall({
          toolName: step.toolName,
          toolInput: step.input,
          toolOutput: { ...step.output, durationMs: step.durationMs },
          ...(step.estimatedCost > 0 ? { estimatedCost: step.estimatedCost } : {}),
          occurredAt,
          durationMs: step.durationMs,
        });
        break;
      case "tool_error":
        run.toolCall({
          toolName: step.toolName,
          toolInput: step.input,
          toolOutput: { error: step.message, durationMs: step.durationMs },
          occurredAt,
          durationMs: step.durationMs,
        });
        run.error({
          message: step.message,
          toolName: step.toolName,
          occurredAt: new Date(occurredAt.getTime() + step.durationMs),
        });
        break;
      case "state":
        run.stateChange({ from: step.from, to: step.to, occurredAt });
        break;
      case "error":
        run.error({ message: step.message, occurredAt });
        break;
    }
  }
  const completedAt = new Date(session.startedAtMs + session.durationMs);
  await run.end(
    session.outcome.status === "failed"
      ? {
          status: "failed",
          success: false,
          failureReason: session.outcome.failureReason,
          durationMs: session.durationMs,
          completedAt,
        }
      : { status: "completed", success: true, durationMs: session.durationMs, completedAt },
  );
  return run.id;
}

/** A client for the demo's runs: everything queued before the first batch leaves is kept; problems go to `errors`. */
export function createDemoTracker(target: DemoTarget, errors: AtsError[]): AgentTracker {
  try {
    return new AgentTracker({
      baseUrl: target.baseUrl,
      apiKey: target.apiKey,
      onError: (error) => errors.push(error),
      maxQueueSize: 10_000_000,
      maxConcurrency: 8,
    });
  } catch (error) {
    throw new DemoSetupError(error instanceof Error ? error.message : String(error));
  }
}
