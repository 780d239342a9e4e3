/** A headline figure, linked to the sessions behind it. */
import { Link } from "react-router";

export function StatTile({
  label,
  value,
  detail,
  to,
  tone,
}: {
  label: string;
  value: string;
  detail?: string;
  to: string;
  tone?: "alarm" | undefined;
}) {
  return (
    <div className={`tile${tone === undefined ? "" : ` tile--${tone}`}`}>
      <dt className="tile__label">{label}</dt>
      <dd className="tile__value">
        <Link to={to} aria-label={`${label}: ${value}${detail === undefined ? "" : ` ${detail}`}, show the sessions`}>
          {value}
        </Link>
      </dd>
      {detail === undefined ? null : <dd className="tile__detail">{detail}</dd>}
    </div>
  );
}
