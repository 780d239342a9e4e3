/**
 * Models and prices: the organisation's own prices (admins add, change and delete them; everyone reads), the models
 * used in the last 30 days with calls no price covered, the price table shipped with the service (searchable) and,
 * for admins, who changed which price.
 */
import { useState } from "react";
import { useDeletePrice, useModelUsage, useOrganisationPrices, usePriceAudit, usePriceTable } from "../../api/prices";
import type { OrganisationPrice, PriceAuditRecord, PriceRates } from "../../api/types";
import { hasRole, useOrganisation } from "../../auth/organisation-context";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState } from "../../components/ErrorState";
import { Loading } from "../../components/Loading";
import { useEnvironment } from "../../lib/environment";
import { formatCost, formatDateTime, formatDay, formatNumber, formatShortDateTime } from "../../lib/format";
import { periodRange } from "../../lib/stats-period";
import { useTransient } from "../../lib/use-transient";
import { PriceDialog } from "./PriceDialog";
import { formatRate, RATE_FIELDS, searchPriceTable, TABLE_ROWS_SHOWN, unpricedModels } from "./price-logic";

const UNPRICED_PERIOD_DAYS = 30;

type Open =
  | { kind: "add"; model?: string }
  | { kind: "edit"; price: OrganisationPrice }
  | { kind: "delete"; price: OrganisationPrice }
  | null;

function RateCells({ rates }: { rates: PriceRates }) {
  return (
    <>
      {RATE_FIELDS.map(([field, label]) => (
        <td key={field} data-label={label} className="num">
          {formatRate(rates[field])}
        </td>
      ))}
    </>
  );
}

function RateHeaders() {
  return (
    <>
      {RATE_FIELDS.map(([field, label]) => (
        <th key={field} scope="col" className="num">
          {label}
        </th>
      ))}
    </>
  );
}

function OrganisationPrices({ canManage, onOpen }: { canManage: boolean; onOpen: (open: Open) => void }) {
  const { orgId } = useOrganisation();
  const prices = useOrganisationPrices();
  if (prices.isPending) return <Loading label="Loading prices…" />;
  if (prices.isError) return <ErrorState error={prices.error} onRetry={() => prices.refetch()} />;
  const { items, limits } = prices.data;
  if (items.length === 0) {
    return (
      <EmptyState title="No prices of your own yet.">
        Calls are priced by the table below. Add a price for a fine-tuned, self-hosted or negotiated model.
      </EmptyState>
    );
  }
  return (
    <>
      <div className="table-scroll">
        <table className="table table--cards">
          <caption>Prices of {orgId}, in USD per million tokens</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">From</th>
              <RateHeaders />
              <th scope="col">Changed</th>
              {canManage ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {items.map((price) => (
              <tr key={`${price.model} ${price.effectiveFrom}`}>
                <th scope="row" data-label="Model" className="cell--model">
                  <code>{price.model}</code>
                  {price.tiers === undefined ? null : (
                    <span className="muted">
                      {" "}
                      (tiers above {price.tiers.map((t) => formatNumber(t.above)).join(", ")} tokens)
                    </span>
                  )}
                </th>
                <td data-label="From" className="cell--nowrap">
                  {formatDay(price.effectiveFrom)}
                </td>
                <RateCells rates={price} />
                <td data-label="Changed" className="cell--nowrap">
                  <time dateTime={price.updatedAt} title={formatDateTime(price.updatedAt)}>
                    {formatShortDateTime(price.updatedAt)}
                  </time>
                  <br />
                  <span className="muted">by {price.updatedBy}</span>
                </td>
                {canManage ? (
                  <td data-label="Actions">
                    <div className="actions">
                      <button
                        type="button"
                        className="button button--small"
                        onClick={() => onOpen({ kind: "edit", price })}
                        aria-label={`Change the price of ${price.model} from ${price.effectiveFrom}`}
                      >
                        Change
                      </button>
                      <button
                        type="button"
                        className="button button--small button--danger"
                        onClick={() => onOpen({ kind: "delete", price })}
                        aria-label={`Delete the price of ${price.model} from ${price.effectiveFrom}`}
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted">
        {formatNumber(items.length)} of at most {formatNumber(limits.pricesPerOrganisation)} prices (
        {formatNumber(limits.pricesPerModel)} per model).
      </p>
    </>
  );
}

function UnpricedModels({ canManage, onOpen }: { canManage: boolean; onOpen: (open: Open) => void }) {
  const [environment] = useEnvironment();
  const { from, to } = periodRange(UNPRICED_PERIOD_DAYS);
  const usage = useModelUsage(environment, from, to);
  if (usage.isPending) return <Loading label="Loading the models used…" />;
  if (usage.isError) return <ErrorState error={usage.error} onRetry={() => usage.refetch()} />;
  const models = unpricedModels(usage.data.models);
  if (models.length === 0) {
    return <EmptyState title="Every model used in the last 30 days has a price." />;
  }
  return (
    <div className="table-scroll">
      <table className="table table--cards">
        <caption>
          Models used in {environment} from {formatDay(from)} to {formatDay(to)} without a price
        </caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" className="num">
              Unpriced calls
            </th>
            <th scope="col" className="num">
              Calls
            </th>
            <th scope="col" className="num">
              Cost priced
            </th>
            {canManage ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {models.map((model) => (
            <tr key={model.model}>
              <th scope="row" data-label="Model" className="cell--model">
                <code>{model.model}</code>
              </th>
              <td data-label="Unpriced calls" className="num">
                {formatNumber(model.unpricedCalls)}
              </td>
              <td data-label="Calls" className="num">
                {formatNumber(model.calls)}
              </td>
              <td data-label="Cost priced" className="num">
                {formatCost(model.estimatedCost)}
              </td>
              {canManage ? (
                <td data-label="Actions">
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() => onOpen({ kind: "add", model: model.model })}
                    aria-label={`Set a price for ${model.model}`}
                  >
                    Set a price
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ShippedTable() {
  const table = usePriceTable();
  const [search, setSearch] = useState("");
  if (table.isPending) return <Loading label="Loading the price table…" />;
  if (table.isError) return <ErrorState error={table.error} onRetry={() => table.refetch()} />;
  const { rows, matched } = searchPriceTable(table.data.items, search);
  return (
    <>
      <label className="field field--search">
        <span>Search the table</span>
        <input
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          placeholder="gpt-4o, claude, bedrock…"
          spellCheck={false}
        />
      </label>
      <p className="muted" role="status">
        {matched === 0
          ? "No model of the table matches."
          : matched > TABLE_ROWS_SHOWN
            ? `${formatNumber(matched)} prices match; the first ${TABLE_ROWS_SHOWN} are shown.`
            : `${formatNumber(matched)} ${matched === 1 ? "price matches" : "prices match"}.`}
      </p>
      {rows.length === 0 ? null : (
        <div className="table-scroll">
          <table className="table table--cards">
            <caption>The price table shipped with the service, in USD per million tokens</caption>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Provider</th>
                <th scope="col">From</th>
                <RateHeaders />
                <th scope="col">Source</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.provider} ${row.model} ${row.effectiveFrom}`}>
                  <th scope="row" data-label="Model" className="cell--model">
                    <code>{row.model}</code>
                  </th>
                  <td data-label="Provider">{row.provider}</td>
                  <td data-label="From" className="cell--nowrap">
                    {formatDay(row.effectiveFrom)}
                  </td>
                  <RateCells rates={row} />
                  <td data-label="Source">
                    <a href={table.data.sources[row.source]?.url ?? "#"} rel="noreferrer" target="_blank">
                      {row.source}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

const AUDIT_ACTIONS = { "price.set": "Set", "price.deleted": "Deleted" } as const;

function ratesText(rates: PriceRates | null): string {
  if (rates === null) return "none";
  return RATE_FIELDS.filter(([field]) => rates[field] !== undefined)
    .map(([field, label]) => `${label.toLowerCase()} ${formatRate(rates[field])}`)
    .join(", ");
}

function PriceChanges() {
  const audit = usePriceAudit({ enabled: true });
  if (audit.isPending) return <Loading label="Loading the changes…" />;
  if (audit.isError) return <ErrorState error={audit.error} onRetry={() => audit.refetch()} />;
  if (audit.data.length === 0) return <EmptyState title="No price was changed yet." />;
  return (
    <ol className="audit">
      {audit.data.map((record: PriceAuditRecord) => (
        <li key={record.id} className="audit__item">
          <p className="audit__line">
            <strong>{AUDIT_ACTIONS[record.action]}</strong> <code>{record.model}</code> from{" "}
            {formatDay(record.effectiveFrom)} by <span className="audit__actor">{record.actor}</span>
          </p>
          <p className="audit__when">
            <time dateTime={record.at}>{formatDateTime(record.at)}</time>
          </p>
          <p className="audit__details">
            Before: {ratesText(record.before)}. After: {ratesText(record.after)}.
          </p>
        </li>
      ))}
    </ol>
  );
}

export function PricesPage() {
  const { orgId, role } = useOrganisation();
  const canManage = hasRole(role, "admin");
  const remove = useDeletePrice();
  const [open, setOpen] = useState<Open>(null);
  const [message, showMessage] = useTransient<string>();
  const close = () => {
    remove.reset();
    setOpen(null);
  };

  return (
    <>
      <div className="page__header">
        <h1>Models and prices</h1>
        {canManage ? (
          <button type="button" className="button button--primary" onClick={() => setOpen({ kind: "add" })}>
            Add a price
          </button>
        ) : null}
      </div>
      <p className="muted">
        Calls are priced when they arrive: by {orgId}'s own price of the model if it has one from that day, else by the
        table shipped with the service. A change applies to calls received from about a minute later on.
        {canManage ? null : ` You are a ${role}: owners and admins set prices.`}
      </p>
      <p className="muted status-line" role="status">
        {message ?? ""}
      </p>
      <section className="section" aria-labelledby="own-prices">
        <div className="section__header">
          <h2 id="own-prices">Your prices</h2>
        </div>
        <OrganisationPrices canManage={canManage} onOpen={setOpen} />
      </section>
      <section className="section" aria-labelledby="unpriced-models">
        <div className="section__header">
          <h2 id="unpriced-models">Models without a price</h2>
          <p className="muted">Last {UNPRICED_PERIOD_DAYS} days</p>
        </div>
        <UnpricedModels canManage={canManage} onOpen={setOpen} />
      </section>
      <section className="section" aria-labelledby="price-table">
        <div className="section__header">
          <h2 id="price-table">Price table</h2>
        </div>
        <ShippedTable />
      </section>
      {canManage ? (
        <section className="section" aria-labelledby="price-changes">
          <div className="section__header">
            <h2 id="price-changes">Changes</h2>
            <p className="muted">Newest first</p>
          </div>
          <PriceChanges />
        </section>
      ) : null}
      {open?.kind === "add" || open?.kind === "edit" ? (
        <PriceDialog
          {...(open.kind === "edit" ? { editing: open.price } : open.model === undefined ? {} : { model: open.model })}
          onClose={(saved) => {
            close();
            if (saved !== undefined) showMessage(`Price of ${saved} saved.`);
          }}
        />
      ) : null}
      {open?.kind === "delete" ? (
        <ConfirmDialog
          title={`Delete the price of ${open.price.model}?`}
          confirmLabel="Delete price"
          onCancel={close}
          onConfirm={() =>
            remove.mutate(
              { model: open.price.model, effectiveFrom: open.price.effectiveFrom },
              {
                onSuccess: () => {
                  close();
                  showMessage(`Price of ${open.price.model} from ${formatDay(open.price.effectiveFrom)} deleted.`);
                },
              },
            )
          }
          pending={remove.isPending}
          error={remove.error}
        >
          <p>
            Calls of {open.price.model} from {formatDay(open.price.effectiveFrom)} on are priced by an earlier price of
            yours, else by the table, from about a minute after. Calls already recorded keep their cost.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
