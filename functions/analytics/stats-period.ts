/** The whole UTC days a stats request covers: default the last 30, at most 366. */
import { ValidationError } from "../domain/errors.js";
import { dayOf } from "../domain/rollup.js";

const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_STATS_DAYS = 30;
export const MAX_STATS_DAYS = 366;

export function statsPeriod(query: { from?: string | undefined; to?: string | undefined }, nowMs = Date.now()) {
  const toDay = query.to === undefined ? dayOf(new Date(nowMs).toISOString()) : dayOf(new Date(query.to).toISOString());
  const fromDay =
    query.from === undefined
      ? dayOf(new Date(Date.parse(toDay) - (DEFAULT_STATS_DAYS - 1) * DAY_MS).toISOString())
      : dayOf(new Date(query.from).toISOString());
  if ((Date.parse(toDay) - Date.parse(fromDay)) / DAY_MS + 1 > MAX_STATS_DAYS) {
    throw new ValidationError(`A stats period covers at most ${MAX_STATS_DAYS} days`, [
      { path: "from", message: `Must be at most ${MAX_STATS_DAYS} days before to` },
    ]);
  }
  return { fromDay, toDay };
}
