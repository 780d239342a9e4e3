/**
 * Finishing a move whose tools did not all fit in its own transaction (session-revision.ts): the session's
 * `toolMove` is carried step by step (tool-move-record.ts) until it is gone. Whoever meets an unfinished move
 * finishes it before going on: the request that moved the session, a later request of the same trace (the trace
 * record says a move is under way), another move, a deletion. Steps of two finishers at once are exact: each is
 * conditioned on the record as read, so the loser reads again and goes on from where the winner left it.
 */
import type { Principal } from "../../domain/principal.js";
import type { Session } from "../../domain/session.js";
import { isConditionFailure } from "../table/condition-failure.js";
import { type TransactItem, transact } from "../table/table-operations.js";
import { backoff, isTransactionConflict } from "../table/write-retry.js";
import { getSession } from "./session-store.js";
import { toolMoveStep } from "./tool-move-record.js";

/** Steps that may lose a race (to another finisher, or the stream consumer's write of the session) in a row. */
const LOST_RACES = 5;

/**
 * Carries the session's unfinished move (as read in `session`) to its end; `lastItems` are written with its last
 * step (by this call: a step another finisher ran does not write them). Resolves when the session holds no
 * unfinished move. A session gone meanwhile (deleted) is a 404 from the read, as for any request.
 */
export async function finishToolMove(
  principal: Principal,
  session: Session,
  lastItems: readonly TransactItem[],
  nowMs: number,
): Promise<void> {
  let move = session.toolMove;
  for (let lost = 0; move !== undefined; ) {
    const step = toolMoveStep(session, move, lastItems);
    try {
      await transact(step.items);
      move = step.next;
      lost = 0;
    } catch (error) {
      // Another finisher ran this step, or a write of the session got in the way: read where the move stands.
      if (!(isConditionFailure(error, 0) || isTransactionConflict(error)) || ++lost >= LOST_RACES) throw error;
      await backoff(lost);
      move = (await getSession(principal, session.id, nowMs)).toolMove;
    }
  }
}
