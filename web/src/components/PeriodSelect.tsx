/** The stats period: one of the fixed periods of whole UTC days ending today. */
import { PERIODS, periodLabel } from "../lib/stats-period";

export function PeriodSelect({ days, onChange }: { days: number; onChange: (days: number) => void }) {
  return (
    <label className="field field--inline">
      <span>Period</span>
      <select value={days} onChange={(event) => onChange(Number(event.target.value))}>
        {PERIODS.map((value) => (
          <option key={value} value={value}>
            {periodLabel(value)}
          </option>
        ))}
      </select>
    </label>
  );
}
