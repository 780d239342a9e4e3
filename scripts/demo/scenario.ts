/**
 * Plans the demo's sessions from a seed: who ran which agent when, and every
 * step of each run with its time offset. Pure: the same options give the same
 * plan (relative to `nowMs`), which `record.ts` then sends through the SDK.
 */
import { DEMO_AGENTS, type DemoAgent, type DemoContext, toolOf } from "./agents.js";
import { createRandom, type Random } from "./random.js";

export const DEMO_USERS: readonly string[] = [
  "user-ada",
  "user-bilal",
  "user-chen",
  "user-dara",
  "user-emeka",
  "user-farah",
  "user-goran",
  "user-hana",
  "user-ivan",
  "user-jia",
  "user-kofi",
  "user-lena",
];

/** Sessions start within this many days before now. */
export const DEMO_WINDOW_DAYS = 14;
/** Share of runs that fail (at least one whenever there are three sessions or more). */
const FAILED_SHARE = 0.15;
/** Chance that a tool call fails (and is retried) in a run that does not fail. */
const TOOL_ERROR_CHANCE = 0.08;
/** Every session (start plus duration) ends at least this long before now. */
const END_MARGIN_MS = 15 * 60 * 1000;
const START_MARGIN_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How often each agent runs, besides once each at least. */
const AGENT_WEIGHTS = [0.45, 0.3, 0.25] as const;

export type DemoStep =
  | {
      readonly kind: "llm";
      readonly atMs: number;
      readonly model: string;
      readonly reasoning: string;
      readonly promptTokens: number;
      readonly completionTokens: number;
      readonly estimatedCost: number;
      readonly durationMs: number;
    }
  | {
      readonly kind: "decision";
      readonly atMs: number;
      readonly reasoning: string;
      readonly alternatives: readonly string[];
      readonly confidence: number;
    }
  | {
      readonly kind: "tool";
      readonly atMs: number;
      readonly toolName: string;
      readonly input: Record<string, unknown>;
      readonly output: Record<string, unknown>;
      readonly estimatedCost: number;
      readonly durationMs: number;
    }
  /** A failed tool call: recorded as its `tool_call` (with the error as output) and an `error` naming the tool. */
  | {
      readonly kind: "tool_error";
      readonly atMs: number;
      readonly toolName: string;
      readonly input: Record<string, unknown>;
      readonly message: string;
      readonly durationMs: number;
    }
  | { readonly kind: "state"; readonly atMs: number; readonly from: string; readonly to: string }
  | { readonly kind: "error"; readonly atMs: number; readonly message: string };

export type DemoOutcome =
  | { readonly status: "completed" }
  | { readonly status: "failed"; readonly failureReason: string };

export interface DemoSession {
  readonly name: string;
  readonly agentName: string;
  readonly userId: string;
  readonly startedAtMs: number;
  readonly durationMs: number;
  readonly metadata: Record<string, unknown>;
  readonly steps: readonly DemoStep[];
  readonly outcome: DemoOutcome;
}

export interface PlanOptions {
  readonly sessions: number;
  readonly seed: string;
  readonly nowMs: number;
}

type FailureKind = "tool" | "low_confidence" | "reason";

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** The sessions of one demo, oldest first. */
export function planDemo(options: PlanOptions): DemoSession[] {
  const random = createRandom(options.seed);
  const count = options.sessions;
  // Every agent and every user at least once when there are enough sessions; the rest weighted or at random.
  const agents = random.shuffle(
    Array.from({ length: count }, (_, i) => DEMO_AGENTS[i] ?? weightedAgent(random)),
  ) as DemoAgent[];
  const users = random.shuffle(Array.from({ length: count }, (_, i) => DEMO_USERS[i] ?? random.pick(DEMO_USERS)));
  const failedCount = count >= 3 ? Math.max(1, Math.round(count * FAILED_SHARE)) : 0;
  const failing = new Set(random.shuffle(Array.from({ length: count }, (_, i) => i)).slice(0, failedCount));
  const windowStart = options.nowMs - DEMO_WINDOW_DAYS * DAY_MS + START_MARGIN_MS;
  const windowEnd = options.nowMs - END_MARGIN_MS;
  const slot = (windowEnd - windowStart) / Math.max(1, count);
  return agents.map((agent, index) => {
    // One slot of the window per session, so even a dozen runs spread over many days.
    const startedAtMs = Math.round(windowStart + (index + random.next()) * slot);
    const failure: FailureKind | undefined = failing.has(index)
      ? random.pick<FailureKind>(["tool", "tool", "low_confidence", "reason"])
      : undefined;
    return planSession(agent, users[index] as string, random, startedAtMs, failure, options.seed);
  });
}

export interface IncidentOptions {
  readonly agent: DemoAgent;
  readonly runs: number;
  readonly failing: number;
  readonly seed: string;
  readonly nowMs: number;
}

/** Gap between the ends of two incident runs; the last one ends this long before now. */
const INCIDENT_SPACING_MS = 15_000;

/**
 * `npm run demo -- --alert`'s incident: `runs` runs of one agent that end in the last few minutes, `failing` of them
 * failed by one of the agent's own tool errors (or, when that phase skipped its tools, one of its failure reasons).
 */
export function planIncident(options: IncidentOptions): DemoSession[] {
  const random = createRandom(`${options.seed}#incident`);
  const users = random.shuffle(DEMO_USERS);
  const failing = new Set(
    random.shuffle(Array.from({ length: options.runs }, (_, i) => i)).slice(0, Math.min(options.failing, options.runs)),
  );
  return Array.from({ length: options.runs }, (_, index) => {
    const user = users[index % users.length] as string;
    const planned = planSession(options.agent, user, random, 0, failing.has(index) ? "tool" : undefined, options.seed);
    const endMs = options.nowMs - (options.runs - index) * INCIDENT_SPACING_MS;
    return {
      ...planned,
      startedAtMs: endMs - planned.durationMs,
      metadata: { ...planned.metadata, source: "npm run demo -- --alert" },
    };
  });
}

function weightedAgent(random: Random): DemoAgent {
  let roll = random.next();
  for (const [i, weight] of AGENT_WEIGHTS.entries()) {
    roll -= weight;
    if (roll < 0) return DEMO_AGENTS[i] as DemoAgent;
  }
  return DEMO_AGENTS[DEMO_AGENTS.length - 1] as DemoAgent;
}

/** One run: the planner thinks, then walks its phases (state change, decision, tools) and answers or fails. */
function planSession(
  agent: DemoAgent,
  userId: string,
  random: Random,
  startedAtMs: number,
  failure: FailureKind | undefined,
  seed: string,
): DemoSession {
  const context = agent.context(random);
  const steps: DemoStep[] = [];
  let at = 0;
  const pause = (min: number, max: number): void => {
    at += random.int(min, max);
  };
  const llm = (reasoning: string, prompt: readonly [number, number], completion: readonly [number, number]) => {
    const promptTokens = random.int(prompt[0], prompt[1]);
    const completionTokens = random.int(completion[0], completion[1]);
    const durationMs = random.int(400, 900) + completionTokens * 12;
    const estimatedCost = round(
      (promptTokens * agent.pricing.prompt + completionTokens * agent.pricing.completion) / 1e6,
      6,
    );
    steps.push({
      kind: "llm",
      atMs: at,
      model: agent.model,
      reasoning,
      promptTokens,
      completionTokens,
      estimatedCost,
      durationMs,
    });
    at += durationMs;
  };
  const decide = (reasoning: string, alternatives: readonly string[], confidence: number) => {
    steps.push({ kind: "decision", atMs: at, reasoning, alternatives, confidence: round(confidence, 2) });
    pause(20, 120);
  };
  const callTool = (name: string, fails: string | undefined) => {
    const tool = toolOf(agent, name);
    const durationMs = random.int(tool.latencyMs[0], tool.latencyMs[1]);
    const input = tool.input(context, random);
    if (fails !== undefined) {
      steps.push({ kind: "tool_error", atMs: at, toolName: name, input, message: fails, durationMs });
    } else {
      const output = tool.output(context, random);
      steps.push({ kind: "tool", atMs: at, toolName: name, input, output, estimatedCost: tool.cost, durationMs });
    }
    at += durationMs;
    pause(30, 250);
  };

  let state = "received";
  const moveTo = (to: string) => {
    steps.push({ kind: "state", atMs: at, from: state, to });
    state = to;
    pause(5, 40);
  };

  llm(
    `Plan for "${describe(context)}": ${agent.phases.map((phase) => phase.state).join(" → ")}`,
    [600, 2400],
    [60, 350],
  );
  const failAt = failure === undefined ? -1 : random.int(0, agent.phases.length - 1);
  let failureReason: string | undefined;
  for (const [index, phase] of agent.phases.entries()) {
    moveTo(phase.state);
    if (phase.decision !== undefined) {
      decide(phase.decision.reasoning, phase.decision.alternatives, random.between(0.6, 0.97));
    }
    if (index === failAt && failure === "low_confidence") {
      const confidence = round(random.between(0.18, 0.42), 2);
      decide(`Unsure how to continue in ${phase.state}`, ["ask the user", "escalate", "guess"], confidence);
      failureReason = `Gave up in ${phase.state}: confidence ${confidence} below the 0.5 threshold`;
      steps.push({ kind: "error", atMs: at, message: failureReason });
      break;
    }
    for (const { name, optional } of phase.tools) {
      if (optional === true && random.chance(0.5)) continue;
      if (index === failAt && failure === "tool") {
        const message = random.pick(toolOf(agent, name).errors);
        callTool(name, message);
        failureReason = `${name} failed: ${message}`;
        break;
      }
      if (random.chance(TOOL_ERROR_CHANCE)) {
        callTool(name, random.pick(toolOf(agent, name).errors));
        llm(`${name} failed; retry once with the same input`, [300, 900], [20, 80]);
        decide(`Retry ${name}`, [`skip ${name}`, "give up"], random.between(0.65, 0.9));
      }
      callTool(name, undefined);
    }
    if (failureReason !== undefined) break;
    if (index === failAt && failure !== undefined) {
      // "reason", or "tool" when the phase happened to skip every tool.
      failureReason = random.pick(agent.failureReasons);
      steps.push({ kind: "error", atMs: at, message: failureReason });
      break;
    }
  }
  if (failureReason === undefined) {
    llm("Answer written from the collected results", [1200, 4200], [120, 700]);
    moveTo("done");
  } else {
    moveTo("failed");
  }
  return {
    name: random.pick(agent.tasks),
    agentName: agent.name,
    userId,
    startedAtMs,
    durationMs: at + random.int(50, 300),
    metadata: { source: "npm run demo", seed, ...context },
    steps,
    outcome: failureReason === undefined ? { status: "completed" } : { status: "failed", failureReason },
  };
}

function describe(context: DemoContext): string {
  return Object.values(context).slice(0, 2).join(" ");
}
