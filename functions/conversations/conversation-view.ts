/** A conversation and its totals as the read API shows them. */
import type { Conversation, ConversationTotals } from "../domain/conversation.js";
import type { ScoreTotal } from "../domain/conversation-score-totals.js";

export function conversationView(conversation: Conversation) {
  return {
    id: conversation.id,
    agentName: conversation.agentName,
    userId: conversation.userId,
    startedAt: conversation.startedAt,
    lastRunAt: conversation.lastRunAt,
    runCount: conversation.runCount,
  };
}

/** The totals: the runs' figures, and the scores per name over the conversation's own and its runs' scores. */
export function conversationTotalsView(
  totals: ConversationTotals,
  complete: boolean,
  scores: { readonly byName: readonly ScoreTotal[]; readonly complete: boolean },
) {
  return { ...totals, complete, scores: scores.byName, scoresComplete: scores.complete };
}
