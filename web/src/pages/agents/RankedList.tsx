/** A top-N list (failure reasons, tools) as a small table; each row links to the sessions behind it. */
import { Link } from "react-router";
import { EmptyState } from "../../components/EmptyState";
import { formatNumber } from "../../lib/format";

export interface RankedRow {
  label: string;
  count: number;
  /** The sessions behind the row, when a listing can find them. */
  to?: string | undefined;
}

export function RankedList({
  title,
  rows,
  countLabel,
  empty,
}: {
  title: string;
  rows: RankedRow[];
  countLabel: string;
  empty: string;
}) {
  return (
    <section className="ranked">
      <h2 className="ranked__title">{title}</h2>
      {rows.length === 0 ? (
        <EmptyState title={empty} />
      ) : (
        <table className="table table--compact">
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" className="num">
                {countLabel}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.label}>
                <th scope="row" className="ranked__label">
                  {row.to === undefined ? row.label : <Link to={row.to}>{row.label}</Link>}
                </th>
                <td className="num">{formatNumber(row.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
