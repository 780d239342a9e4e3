/** Scores as a list: name, value, comment, where it came from, who gave it and when; edit and delete where allowed. */
import type { Score } from "../../api/types";
import { formatDateTime, formatShortDateTime } from "../../lib/format";
import { SOURCE_NAMES, scoreAuthorText } from "../../lib/score-values";
import { ScoreValueView } from "./ScoreValueView";

export interface ScoreListProps {
  scores: readonly Score[];
  label: string;
  myUserId: string;
  canEdit: (score: Score) => boolean;
  canDelete: (score: Score) => boolean;
  onEdit: (score: Score) => void;
  onDelete: (score: Score) => void;
}

export function ScoreList({ scores, label, myUserId, canEdit, canDelete, onEdit, onDelete }: ScoreListProps) {
  return (
    <ul className="scores" aria-label={label}>
      {scores.map((score) => (
        <li key={score.id} className="score">
          <div className="score__line">
            <span className="score__name">{score.name}</span>
            <ScoreValueView value={score.value} />
            <span className="score__meta muted">
              {SOURCE_NAMES[score.source]}, {scoreAuthorText(score, myUserId)},{" "}
              <time dateTime={score.updatedAt} title={formatDateTime(score.updatedAt)}>
                {formatShortDateTime(score.updatedAt)}
              </time>
            </span>
            {canEdit(score) || canDelete(score) ? (
              <span className="actions score__actions">
                {canEdit(score) ? (
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() => onEdit(score)}
                    aria-label={`Edit the score ${score.name}`}
                  >
                    Edit
                  </button>
                ) : null}
                {canDelete(score) ? (
                  <button
                    type="button"
                    className="button button--small button--danger"
                    onClick={() => onDelete(score)}
                    aria-label={`Delete the score ${score.name}`}
                  >
                    Delete
                  </button>
                ) : null}
              </span>
            ) : null}
          </div>
          {score.comment === null ? null : <p className="score__comment">{score.comment}</p>}
        </li>
      ))}
    </ul>
  );
}
