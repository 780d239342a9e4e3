/** A session's cost: what the client reported for the run, else what its events cost; none when neither says. */
import type { Session } from "../../api/types";

export function sessionCost(session: Pick<Session, "estimatedCost" | "eventCost">): {
  amount: number | null;
  source: string | undefined;
} {
  if (session.estimatedCost !== null) return { amount: session.estimatedCost, source: "reported" };
  if (session.eventCost > 0) return { amount: session.eventCost, source: "from its events" };
  return { amount: null, source: undefined };
}
