/**
 * The demo's three scripted agents: each has a model, tools with small
 * realistic inputs and outputs, a plan of phases and its own ways to fail.
 * No LLM is called; `scenario.ts` turns these into timed steps.
 */
import type { Random } from "./random.js";

/** What one session is about (an order, a question, a pull request), drawn once per session. */
export type DemoContext = Readonly<Record<string, string | number>>;

export interface DemoTool {
  readonly name: string;
  /** Estimated cost of one call in USD (search APIs, CI minutes…); 0 when free. */
  readonly cost: number;
  /** How long a call takes, [min, max] ms. */
  readonly latencyMs: readonly [number, number];
  input(context: DemoContext, random: Random): Record<string, unknown>;
  output(context: DemoContext, random: Random): Record<string, unknown>;
  /** Messages of the ways it fails. */
  readonly errors: readonly string[];
}

export interface DemoPhase {
  /** The run's state while in this phase (recorded as a state change into it). */
  readonly state: string;
  /** The planner's decision on entering the phase, if it makes one. */
  readonly decision?: { readonly reasoning: string; readonly alternatives: readonly string[] };
  /** Tools called in order; optional ones are skipped about half the time. */
  readonly tools: readonly { readonly name: string; readonly optional?: boolean }[];
}

export interface DemoAgent {
  readonly name: string;
  readonly model: string;
  /** USD per million tokens. */
  readonly pricing: { readonly prompt: number; readonly completion: number };
  /** Session names, one picked per run. */
  readonly tasks: readonly string[];
  context(random: Random): DemoContext;
  readonly tools: readonly DemoTool[];
  readonly phases: readonly DemoPhase[];
  /** Why a run fails when no tool error is to blame. */
  readonly failureReasons: readonly string[];
}

const id = (random: Random, prefix: string, digits = 5): string =>
  `${prefix}${String(random.int(0, 10 ** digits - 1)).padStart(digits, "0")}`;

const supportBot: DemoAgent = {
  name: "support-bot",
  model: "gpt-4o-mini",
  pricing: { prompt: 0.15, completion: 0.6 },
  tasks: ["Refund request", "Where is my order?", "Change shipping address", "Cancel subscription", "Double charge"],
  context: (random) => ({
    customerId: id(random, "cus_"),
    orderId: id(random, "A-", 6),
    amount: random.int(12, 240),
    plan: random.pick(["free", "pro", "team"]),
  }),
  tools: [
    {
      name: "lookup_customer",
      cost: 0,
      latencyMs: [40, 180],
      input: (c) => ({ customerId: c.customerId }),
      output: (c, r) => ({ plan: c.plan, since: `20${r.int(19, 25)}-0${r.int(1, 9)}`, openTickets: r.int(0, 3) }),
      errors: ["CRM timeout after 5000 ms"],
    },
    {
      name: "get_order",
      cost: 0,
      latencyMs: [60, 250],
      input: (c) => ({ orderId: c.orderId }),
      output: (c, r) => ({
        orderId: c.orderId,
        status: r.pick(["delivered", "in_transit", "processing"]),
        total: c.amount,
        currency: "EUR",
      }),
      errors: ["orders-api: 503 Service Unavailable", "Order not found"],
    },
    {
      name: "search_kb",
      cost: 0.0004,
      latencyMs: [120, 600],
      input: (_c, r) => ({ query: r.pick(["refund policy", "delivery times", "change address", "cancel plan"]), k: 3 }),
      output: (_c, r) => ({ hits: r.int(1, 3), top: r.pick(["kb/refunds", "kb/shipping", "kb/billing"]) }),
      errors: ["Vector index unavailable"],
    },
    {
      name: "issue_refund",
      cost: 0,
      latencyMs: [300, 1200],
      input: (c) => ({ orderId: c.orderId, amount: c.amount, currency: "EUR" }),
      output: (_c, r) => ({ refundId: id(r, "re_"), state: "pending" }),
      errors: ["payments: card_declined", "payments: refund exceeds captured amount"],
    },
    {
      name: "send_reply",
      cost: 0.0001,
      latencyMs: [80, 300],
      input: (c) => ({ customerId: c.customerId, channel: "email", template: "resolution" }),
      output: (_c, r) => ({ messageId: id(r, "msg_"), queued: true }),
      errors: ["SMTP relay refused the message"],
    },
  ],
  phases: [
    {
      state: "triage",
      decision: {
        reasoning: "The customer mentions an order: look it up before answering",
        alternatives: ["answer from the knowledge base", "escalate to a human"],
      },
      tools: [{ name: "lookup_customer" }, { name: "get_order" }],
    },
    {
      state: "investigating",
      tools: [{ name: "search_kb" }],
    },
    {
      state: "resolving",
      decision: {
        reasoning: "Within policy: refund and confirm by email",
        alternatives: ["offer store credit", "escalate to billing"],
      },
      tools: [{ name: "issue_refund", optional: true }, { name: "send_reply" }],
    },
  ],
  failureReasons: [
    "Escalated to a human: the customer asked for a manager",
    "Refund above the 200 EUR auto-approve limit",
  ],
};

const researchAssistant: DemoAgent = {
  name: "research-assistant",
  model: "claude-sonnet-4",
  pricing: { prompt: 3, completion: 15 },
  tasks: [
    "Compare vector databases",
    "Summarise EU AI Act obligations",
    "Market size of e-bikes",
    "Literature review: RAG evaluation",
  ],
  context: (random) => ({
    topic: random.pick(["vector databases", "EU AI Act", "e-bike market", "RAG evaluation"]),
    sources: random.int(3, 8),
  }),
  tools: [
    {
      name: "web_search",
      cost: 0.005,
      latencyMs: [300, 1500],
      input: (c) => ({ query: `${c.topic} 2025 overview`, count: 10 }),
      output: (_c, r) => ({ results: r.int(6, 10), domains: ["arxiv.org", "wikipedia.org", "example.com"] }),
      errors: ["search API: 429 Too Many Requests"],
    },
    {
      name: "fetch_url",
      cost: 0,
      latencyMs: [200, 2500],
      input: (_c, r) => ({ url: `https://example.com/articles/${r.int(100, 999)}` }),
      output: (_c, r) => ({ status: 200, bytes: r.int(8_000, 90_000), title: "An overview" }),
      errors: ["fetch_url: 503 upstream after 2 retries", "fetch_url: blocked by robots.txt"],
    },
    {
      name: "summarize_pdf",
      cost: 0.002,
      latencyMs: [800, 4000],
      input: (_c, r) => ({ url: `https://arxiv.org/pdf/24${r.int(10, 12)}.${r.int(10000, 99999)}`, maxWords: 200 }),
      output: (_c, r) => ({ pages: r.int(8, 40), words: r.int(150, 200) }),
      errors: ["PDF is scanned: no text layer"],
    },
    {
      name: "save_note",
      cost: 0,
      latencyMs: [30, 120],
      input: (c) => ({ notebook: "research", title: String(c.topic), sources: c.sources }),
      output: (_c, r) => ({ noteId: id(r, "note_"), saved: true }),
      errors: ["notes: quota exceeded"],
    },
  ],
  phases: [
    {
      state: "searching",
      decision: {
        reasoning: "Broad web search first, then read the two most cited sources",
        alternatives: ["go straight to arXiv", "ask the user to narrow the question"],
      },
      tools: [{ name: "web_search" }, { name: "web_search", optional: true }],
    },
    {
      state: "reading",
      decision: {
        reasoning: "Two sources disagree; read the primary paper",
        alternatives: ["trust the newer blog post", "report both views"],
      },
      tools: [{ name: "fetch_url" }, { name: "summarize_pdf", optional: true }, { name: "fetch_url", optional: true }],
    },
    {
      state: "writing",
      tools: [{ name: "save_note" }],
    },
  ],
  failureReasons: ["Not enough reliable sources (found 1, need 3)", "Context window exceeded while merging summaries"],
};

const codeReviewer: DemoAgent = {
  name: "code-reviewer",
  model: "gpt-4.1",
  pricing: { prompt: 2, completion: 8 },
  tasks: ["Review PR", "Review dependency bump", "Security review", "Review hotfix"],
  context: (random) => ({
    repo: random.pick(["acme/web", "acme/api", "acme/billing"]),
    pr: random.int(1200, 4800),
    files: random.int(1, 24),
  }),
  tools: [
    {
      name: "get_diff",
      cost: 0,
      latencyMs: [100, 500],
      input: (c) => ({ repo: c.repo, pr: c.pr }),
      output: (c, r) => ({ files: c.files, additions: r.int(5, 600), deletions: r.int(0, 300) }),
      errors: ["GitHub API: 502 Bad Gateway"],
    },
    {
      name: "run_tests",
      cost: 0.008,
      latencyMs: [2000, 9000],
      input: (c) => ({ repo: c.repo, pr: c.pr, suite: "unit" }),
      output: (_c, r) => {
        const failed = r.chance(0.2) ? r.int(1, 3) : 0;
        return { passed: r.int(120, 900), failed, durationS: r.int(40, 300) };
      },
      errors: ["CI runner lost (exit 137)", "Timed out after 600 s waiting for CI"],
    },
    {
      name: "static_analysis",
      cost: 0.001,
      latencyMs: [500, 2500],
      input: (c) => ({ repo: c.repo, pr: c.pr, rules: "recommended" }),
      output: (_c, r) => ({ findings: r.int(0, 6), severity: r.pick(["info", "warning", "error"]) }),
      errors: ["analyzer crashed: out of memory"],
    },
    {
      name: "post_review_comment",
      cost: 0,
      latencyMs: [150, 600],
      input: (c, r) => ({
        repo: c.repo,
        pr: c.pr,
        path: `src/${r.pick(["api", "ui", "db"])}/index.ts`,
        line: r.int(1, 400),
      }),
      output: (_c, r) => ({ commentId: r.int(100000, 999999) }),
      errors: ["GitHub API: 403 resource not accessible by integration"],
    },
  ],
  phases: [
    {
      state: "reading_diff",
      tools: [{ name: "get_diff" }],
    },
    {
      state: "checking",
      decision: {
        reasoning: "The diff touches the data layer: run the tests before commenting",
        alternatives: ["comment on style only", "approve without tests"],
      },
      tools: [{ name: "run_tests" }, { name: "static_analysis", optional: true }],
    },
    {
      state: "commenting",
      decision: {
        reasoning: "One likely bug worth a comment; the rest are nits",
        alternatives: ["request changes", "approve"],
      },
      tools: [{ name: "post_review_comment" }, { name: "post_review_comment", optional: true }],
    },
  ],
  failureReasons: ["Diff too large to review (over 5,000 changed lines)", "Could not check out the PR's merge commit"],
};

export const DEMO_AGENTS: readonly DemoAgent[] = [supportBot, researchAssistant, codeReviewer];

export function toolOf(agent: DemoAgent, name: string): DemoTool {
  const tool = agent.tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`${agent.name} has no tool ${name}`);
  return tool;
}
