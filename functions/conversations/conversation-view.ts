/** A conversation and its totals as the read API shows them. */
import type { Conversation, ConversationTotals } from "../domain/conversation.js";

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

export function conversationTotalsView(totals: ConversationTotals, complete: boolean) {
  return { ...totals, complete };
}
