/**
 * A conversation's "Scores" section: its own scores, which a member gives (thumbs, a label with a comment), edits
 * and deletes as on a session's page, then the figures per name over its own scores and its runs'.
 */
import { useConversationScores, useScoreConfigs } from "../../api/scores";
import type { ConversationTotals } from "../../api/types";
import { ScoresSection } from "../../components/scores/ScoresSection";
import { useEnvironment } from "../../lib/environment";
import { ScoreTotals } from "./ScoreTotals";

export function ConversationScores({
  conversationId,
  totals,
}: {
  conversationId: string;
  /** The first page's totals; null on none read yet. */
  totals: ConversationTotals | null;
}) {
  const [environment] = useEnvironment();
  const query = useConversationScores(environment, conversationId);
  const configs = useScoreConfigs();
  const scores = query.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <ScoresSection
      environment={environment}
      target={{ kind: "conversation", conversationId }}
      targetName="this conversation"
      query={query}
      scores={scores}
      configs={configs.data ?? []}
      elsewhere="a run's scores are on its page; all are counted below"
    >
      {totals === null ? null : <ScoreTotals totals={totals} />}
    </ScoresSection>
  );
}
