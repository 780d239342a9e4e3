/** A top-N list (failure reasons, tools) as a small table. */
import { EmptyState } from "../../components/EmptyState";
import { formatNumber } from "../../lib/format";

export function RankedList({
  title,
  rows,
  countLabel,
  empty,
}: {
  title: string;
  rows: { label: string; count: number }[];
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
                  {row.label}
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
