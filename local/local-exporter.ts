/**
 * The local stand-in for the export's schedule (an EventBridge rule, hourly by default, on AWS): `npm start` runs
 * the Parquet export (functions/export/export-run.ts) every `ATS_EXPORT_INTERVAL_MS` (default an hour) into the
 * local S3's export bucket; `npm run export` runs it at once. One run at a time: the state item's lock also keeps
 * a run of `npm run export` and the timer's apart.
 */
export interface LocalExporter {
  readonly periodMs: number;
  stop(): void;
}

/** The export period: ATS_EXPORT_INTERVAL_MS, else an hour. */
export function exportPeriodMs(raw = process.env.ATS_EXPORT_INTERVAL_MS): number {
  if (raw === undefined || raw === "") return 3_600_000;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1000) {
    throw new Error(`ATS_EXPORT_INTERVAL_MS must be an integer of at least 1000 (ms), got "${raw}"`);
  }
  return value;
}

/** Needs the service environment configured (see local-database.ts) and EXPORT_BUCKET. */
export async function startLocalExporter(periodMs = exportPeriodMs()): Promise<LocalExporter> {
  const { runExport } = await import("../functions/export/export-run.js");
  const { logError, logger } = await import("../functions/runtime/log.js");
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    runExport()
      .then((result) => {
        if (result.status === "committed") logger.info("export run committed", { ...result });
      })
      .catch((error: unknown) => logError("local export run failed; the next run tries again", error))
      .finally(() => {
        running = false;
      });
  }, periodMs);
  timer.unref();
  return { periodMs, stop: () => clearInterval(timer) };
}
