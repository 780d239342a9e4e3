import { Duration } from "aws-cdk-lib";
import type { IConstruct } from "constructs";

/**
 * The export's deploy settings (issue 35; docs/deploy.md): each a stack property, else a context value
 * (`-c key=value`), else its default.
 */
export interface ExportSettings {
  /** The Glue database of the export's tables (Athena's `FROM <database>.sessions`). */
  readonly databaseName: string;
  /** How often the scheduled export runs; `false`: no schedule (on demand only, `aws lambda invoke`). */
  readonly schedule: Duration | false;
  /** Athena refuses a query of the workgroup once it has scanned this many bytes. */
  readonly bytesScannedCutoffPerQuery: number;
  /** Reserved concurrency of the export function; `false`: none (an account at the default quota of 10). */
  readonly reservedConcurrency: number | false;
}

export const DEFAULT_EXPORT_SETTINGS: ExportSettings = {
  databaseName: "ats_export",
  schedule: Duration.hours(1),
  bytesScannedCutoffPerQuery: 10 * 1024 ** 3,
  reservedConcurrency: 1,
};

/** The context keys of the settings (`-c exportScheduleMinutes=15`). */
export const EXPORT_CONTEXT_KEYS = {
  databaseName: "exportDatabase",
  scheduleMinutes: "exportScheduleMinutes",
  bytesScannedCutoffGb: "exportBytesScannedCutoffGb",
  reservedConcurrency: "exportReservedConcurrency",
} as const;

/** Glue database names: lower case letters, digits and underscores (Athena's rule), at most 255. */
const DATABASE_NAME = /^[a-z][a-z0-9_]{0,254}$/;
/** Athena's smallest cutoff (10 MB). */
const MIN_CUTOFF_BYTES = 10 * 1024 ** 2;

function wholeNumber(scope: IConstruct, key: string): number | undefined {
  const configured: unknown = scope.node.tryGetContext(key);
  if (configured === undefined) return undefined;
  const value = typeof configured === "string" && /^\d+$/.test(configured) ? Number(configured) : configured;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new Error(`Context ${key} must be a whole number, got ${JSON.stringify(configured)}`);
  }
  return value;
}

/**
 * The settings: `props` first, then the context, then {@link DEFAULT_EXPORT_SETTINGS}.
 * @throws Error for a database name Athena would refuse, a cutoff under 10 MB, a schedule of less than a minute,
 * or a context value that is not a whole number.
 */
export function exportSettings(scope: IConstruct, props: Partial<ExportSettings> = {}): ExportSettings {
  const minutes = wholeNumber(scope, EXPORT_CONTEXT_KEYS.scheduleMinutes);
  const gigabytes = wholeNumber(scope, EXPORT_CONTEXT_KEYS.bytesScannedCutoffGb);
  const concurrency = wholeNumber(scope, EXPORT_CONTEXT_KEYS.reservedConcurrency);
  const contextDatabase: unknown = scope.node.tryGetContext(EXPORT_CONTEXT_KEYS.databaseName);
  const settings: ExportSettings = {
    databaseName:
      props.databaseName ??
      (typeof contextDatabase === "string" ? contextDatabase : DEFAULT_EXPORT_SETTINGS.databaseName),
    schedule:
      props.schedule ??
      (minutes === undefined ? DEFAULT_EXPORT_SETTINGS.schedule : minutes === 0 ? false : Duration.minutes(minutes)),
    bytesScannedCutoffPerQuery:
      props.bytesScannedCutoffPerQuery ??
      (gigabytes === undefined ? DEFAULT_EXPORT_SETTINGS.bytesScannedCutoffPerQuery : gigabytes * 1024 ** 3),
    reservedConcurrency:
      props.reservedConcurrency ??
      (concurrency === undefined
        ? DEFAULT_EXPORT_SETTINGS.reservedConcurrency
        : concurrency === 0
          ? false
          : concurrency),
  };
  if (!DATABASE_NAME.test(settings.databaseName)) {
    throw new Error(
      `The export's Glue database name must be lower case letters, digits and underscores, starting with a letter; got ${JSON.stringify(settings.databaseName)}`,
    );
  }
  if (settings.bytesScannedCutoffPerQuery < MIN_CUTOFF_BYTES) {
    throw new Error(`The export workgroup's bytes-scanned cutoff must be at least 10 MB (Athena's minimum)`);
  }
  if (settings.schedule !== false && settings.schedule.toMinutes() < 1) {
    throw new Error("The export schedule must be at least a minute");
  }
  return settings;
}
