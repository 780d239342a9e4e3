/** A score's value by its kind: a number as written, ✓ or ✗ for yes/no, a label as a chip. */
import type { ScoreValue } from "../../api/types";
import { scoreValueText } from "../../lib/score-values";

export function ScoreValueView({ value }: { value: ScoreValue }) {
  if (typeof value === "boolean") {
    return (
      <span className={`score-value score-value--${value ? "yes" : "no"}`}>
        <span aria-hidden="true">{value ? "✓" : "✗"}</span>
        <span className="visually-hidden">{scoreValueText(value)}</span>
      </span>
    );
  }
  if (typeof value === "number")
    return <span className="score-value score-value--number">{scoreValueText(value)}</span>;
  return <span className="score-value score-value--label">{value}</span>;
}
