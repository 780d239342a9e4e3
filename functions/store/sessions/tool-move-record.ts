/**
 * A move's per-tool counts, when they do not all fit in the move's own transaction: recorded on the session item
 * (`toolMove`, domain/session.ts ToolMove) by the move, then carried from the old tool rollups to the new ones a
 * few tools per transaction. Each of those transactions updates the session on the condition that the record is
 * still the one read (its `id`) at the same point (`done`), and advances it (or removes it after the last tools),
 * so each tool moves exactly once, whoever runs the step and however often.
 *
 * The rollup `ADD`s commute with everything else counted into those items (the stream consumer's shares, other
 * moves, deletions), so a rollup is exact once the record is gone; until then a tool is counted under the old
 * agent or user (and day) or the new one, never both or neither. The move's countVersion condition and its
 * `countMoves` entry (session-revision.ts) are not changed by these steps.
 */
import type { Session, ToolMove, ToolMovePlace } from "../../domain/session.js";
import { type RollupTarget, toolRollupUpdates } from "../counting/rollup-store.js";
import { sessionKey, tenant } from "../table/keys.js";
import type { TransactItem } from "../table/table-operations.js";

/** The attribute of the session item holding an unfinished move's tools. */
export const TOOL_MOVE_ATTRIBUTE = "toolMove";

/** DynamoDB's most items in one TransactWriteItems. */
export const MAX_TRANSACT_ITEMS = 100;

function placeOf(value: unknown): ToolMovePlace | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { agentName, userId, day, ttl } = value as Record<string, unknown>;
  if (typeof agentName !== "string" || typeof userId !== "string") return undefined;
  if (typeof day !== "string" || typeof ttl !== "number") return undefined;
  return { agentName, userId, day, ttl };
}

function toolOf(value: unknown): readonly [string, number, number] | undefined {
  if (!Array.isArray(value)) return undefined;
  const [name, calls, errors] = value as unknown[];
  if (typeof name !== "string" || typeof calls !== "number" || typeof errors !== "number") return undefined;
  return [name, calls, errors];
}

/** The unfinished move stored on a session item, if any (undefined also for a malformed one). */
export function toolMoveOf(stored: unknown): ToolMove | undefined {
  if (typeof stored !== "object" || stored === null) return undefined;
  const { id, from, to, dimensions, tools, done } = stored as Record<string, unknown>;
  const fromPlace = placeOf(from);
  const toPlace = placeOf(to);
  if (typeof id !== "string" || typeof done !== "number" || fromPlace === undefined || toPlace === undefined)
    return undefined;
  if (!Array.isArray(dimensions) || !Array.isArray(tools)) return undefined;
  const parsedTools = tools.map(toolOf);
  if (parsedTools.some((tool) => tool === undefined)) return undefined;
  return {
    id,
    from: fromPlace,
    to: toPlace,
    dimensions: dimensions.filter((dimension) => dimension === "AGENT" || dimension === "USER"),
    tools: parsedTools as (readonly [string, number, number])[],
    done,
  };
}

/** Rollup items one tool of a move writes: its withdrawal from and its addition to each dimension moved. */
export function itemsPerTool(dimensions: ToolMove["dimensions"]): number {
  return 2 * dimensions.length;
}

function targetOf(session: Pick<Session, "orgId" | "environment">, place: ToolMovePlace): RollupTarget {
  return { tenant: tenant(session.orgId, session.environment), ...place };
}

/** The rollup items moving `tools` of a move: out of `from`, into `to`, in the dimensions it changed. */
export function toolShareItems(
  session: Pick<Session, "orgId" | "environment">,
  move: Pick<ToolMove, "from" | "to" | "dimensions">,
  tools: ToolMove["tools"],
): TransactItem[] {
  const counts = (sign: 1 | -1) =>
    Object.fromEntries(tools.map(([name, calls, errors]) => [name, { calls: sign * calls, errors: sign * errors }]));
  return [
    ...toolRollupUpdates(targetOf(session, move.from), counts(-1), move.dimensions),
    ...toolRollupUpdates(targetOf(session, move.to), counts(1), move.dimensions),
  ];
}

/** One step of an unfinished move: its transaction items, and the move as it stands after them (undefined: done). */
export interface ToolMoveStep {
  readonly items: TransactItem[];
  readonly next: ToolMove | undefined;
}

/**
 * The next step of the session's unfinished move: its tools from `done` on, as many as fit beside the session's
 * update and `lastItems` (written with the last step only, e.g. the trace record's mark that the move is under
 * way). At most MAX_TRANSACT_ITEMS items: 24 tools when both dimensions move.
 */
export function toolMoveStep(
  session: Pick<Session, "id" | "orgId" | "environment">,
  move: ToolMove,
  lastItems: readonly TransactItem[],
): ToolMoveStep {
  const room = MAX_TRANSACT_ITEMS - 1 - lastItems.length;
  const count = Math.max(1, Math.floor(room / Math.max(1, itemsPerTool(move.dimensions))));
  const tools = move.tools.slice(move.done, move.done + count);
  const done = move.done + tools.length;
  const last = done >= move.tools.length;
  const update: TransactItem = {
    Update: {
      Key: sessionKey(session.id),
      UpdateExpression: last ? "REMOVE #toolMove" : "SET #toolMove.#done = :next",
      ConditionExpression: "attribute_exists(PK) AND #toolMove.#id = :id AND #toolMove.#done = :done",
      ExpressionAttributeNames: { "#toolMove": TOOL_MOVE_ATTRIBUTE, "#id": "id", "#done": "done" },
      ExpressionAttributeValues: { ":id": move.id, ":done": move.done, ...(last ? {} : { ":next": done }) },
    },
  };
  return {
    items: [update, ...toolShareItems(session, move, tools), ...(last ? lastItems : [])],
    next: last ? undefined : { ...move, done },
  };
}
