/**
 * A conversation's scores per name (its totals' `scores`): its own and its runs', each name with its count and its
 * figures in words; said so when the figures cover only part of the conversation (`scoresComplete: false`).
 */
import type { ConversationTotals } from "../../api/types";
import { formatNumber } from "../../lib/format";
import { scoreFiguresParts } from "../../lib/score-figures";

export function ScoreTotals({ totals }: { totals: Pick<ConversationTotals, "scores" | "scoresComplete"> }) {
  return (
    <div className="score-totals">
      {totals.scores.length === 0 ? (
        <p className="muted">No scores on the conversation or its runs yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="table table--compact">
            <caption>Totals per name: the conversation's scores and its runs'</caption>
            <thead>
              <tr>
                <th scope="col">Score</th>
                <th scope="col" className="num">
                  Count
                </th>
                <th scope="col">Figures</th>
              </tr>
            </thead>
            <tbody>
              {totals.scores.map((figures) => (
                <tr key={figures.name}>
                  <th scope="row" className="score-totals__name">
                    {figures.name}
                  </th>
                  <td className="num">{formatNumber(figures.count)}</td>
                  <td className="score-totals__figures">{scoreFiguresParts(figures).join("; ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {totals.scoresComplete ? null : (
        <p className="muted" role="note">
          These figures cover only part of the conversation: its own first 100 scores and the first 100 of each of its
          first 20 runs, 50 names at most.
        </p>
      )}
    </div>
  );
}
