/**
 * Cost by model over a period (GET /api/sdk/models, or an agent's): per model its calls, tokens and cost, and the
 * calls no price covered on a line of their own, so a gap in the cost is seen, not hidden (their cost is unknown:
 * it is in no figure). On a phone the unpriced count goes under its model's cost, so the table fits.
 */
import type { UseQueryResult } from "@tanstack/react-query";
import { Link } from "react-router";
import type { Environment, ModelsReport } from "../api/types";
import { costByModel } from "../lib/cost-by-model";
import { withEnvironment } from "../lib/environment";
import { formatCompact, formatCost, formatNumber } from "../lib/format";
import { EmptyState } from "./EmptyState";
import { ErrorState } from "./ErrorState";
import { Loading } from "./Loading";

export function CostByModel({
  query,
  environment,
  scope,
}: {
  query: UseQueryResult<Pick<ModelsReport, "models" | "totals">>;
  environment: Environment;
  /** Whose calls, for the caption ("all agents", an agent's name). */
  scope: string;
}) {
  const prices = withEnvironment("/settings/prices", environment);
  return (
    <section className="section cost-by-model" aria-labelledby="cost-by-model">
      <h2 id="cost-by-model">Cost by model</h2>
      {query.isPending ? <Loading label="Loading cost by model…" /> : null}
      {query.isError ? <ErrorState error={query.error} onRetry={() => query.refetch()} /> : null}
      {query.data !== undefined && query.data.totals.calls === 0 ? (
        <EmptyState title="No model calls in this period.">
          Events that name a <code>model</code> or carry <code>usage</code> are counted here.
        </EmptyState>
      ) : null}
      {query.data !== undefined && query.data.totals.calls > 0 ? (
        <ModelLines report={query.data} prices={prices} scope={scope} />
      ) : null}
    </section>
  );
}

function ModelLines({
  report,
  prices,
  scope,
}: {
  report: Pick<ModelsReport, "models" | "totals">;
  prices: string;
  scope: string;
}) {
  const { lines, totals, unpricedCalls } = costByModel(report);
  return (
    <div className="table-scroll">
      <table className="table table--compact">
        <caption className="visually-hidden">Model calls of {scope} per model, the costliest first</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" className="num">
              Calls
            </th>
            <th scope="col" className="num">
              Tokens
            </th>
            <th scope="col" className="num">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.map((line) => (
            <tr key={line.label}>
              <th scope="row" className="cell--model">
                {line.explanation === undefined ? <code>{line.label}</code> : line.label}
                {line.explanation === undefined ? null : <span className="muted"> ({line.explanation})</span>}
              </th>
              <td className="num">{formatNumber(line.calls)}</td>
              <td className="num" title={`${formatNumber(line.totalTokens)} tokens`}>
                {formatCompact(line.totalTokens)}
              </td>
              <td className="num">
                {formatCost(line.estimatedCost)}
                {line.unpricedCalls > 0 ? (
                  <>
                    {" "}
                    <span className="cost-gap">+ {formatNumber(line.unpricedCalls)} unpriced</span>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr className={unpricedCalls > 0 ? "row--gap" : undefined}>
            <th scope="row">
              Calls without a price
              {unpricedCalls > 0 ? (
                <span className="cost-gap__action">
                  {" "}
                  <Link to={prices}>Set a price</Link>
                </span>
              ) : null}
            </th>
            <td className="num">{formatNumber(unpricedCalls)}</td>
            <td className="num" />
            <td className="num">{unpricedCalls > 0 ? "unknown" : "none"}</td>
          </tr>
          <tr>
            <th scope="row">All model calls</th>
            <td className="num">{formatNumber(totals.calls)}</td>
            <td className="num" title={`${formatNumber(totals.totalTokens)} tokens`}>
              {formatCompact(totals.totalTokens)}
            </td>
            <td className="num">{formatCost(totals.estimatedCost)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
