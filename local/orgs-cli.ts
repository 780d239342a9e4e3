/**
 * `npm run orgs -- retention --org <org> --days <n> [--rollup-days <n>] [--aws]`:
 * how long an organisation keeps sessions and events (default 90 days) and
 * analytics rollups (default 400 days).
 * `npm run orgs -- rate-limit --org <org> --per-minute <n> [--per-key <n>] [--aws]`: requests per minute of
 * all the organisation's keys together, and optionally a lower limit for any one key.
 */
import { parseArgs } from "node:util";
import { openCliDatabase } from "./cli-database.js";
import { requiredFlag, runCli, UsageError } from "./cli-program.js";

const USAGE = [
  "Usage:",
  "  npm run orgs -- retention --org <org> --days <1-3650> [--rollup-days <1-3650>] [--aws]",
  "  npm run orgs -- rate-limit --org <org> --per-minute <1-1000000> [--per-key <1-1000000>] [--aws]",
].join("\n");

function whole(value: string | undefined, flag: string, max: number): number {
  const parsed = Number(requiredFlag(value, flag, USAGE));
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > max) {
    throw new UsageError(`--${flag} must be 1 to ${max}\n${USAGE}`);
  }
  return parsed;
}

const days = (value: string | undefined, flag: string) => whole(value, flag, 3650);

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: "string" },
      days: { type: "string" },
      "rollup-days": { type: "string" },
      "per-minute": { type: "string" },
      "per-key": { type: "string" },
      aws: { type: "boolean", default: false },
    },
  });
  const command = positionals[0];
  if (command !== "retention" && command !== "rate-limit") throw new UsageError(USAGE);
  const orgId = requiredFlag(values.org, "org", USAGE);
  const retentionDays = command === "retention" ? days(values.days, "days") : 0;
  const perMinute = command === "rate-limit" ? whole(values["per-minute"], "per-minute", 1_000_000) : 0;
  const database = await openCliDatabase({ aws: values.aws });
  try {
    const { findOrganisation, updateOrganisationSettings } = await import(
      "../functions/store/members/organisation-store.js"
    );
    const { DEFAULT_ROLLUP_RETENTION_DAYS } = await import("../functions/store/table/retention.js");
    const organisation = await findOrganisation(orgId);
    if (organisation === undefined) throw new Error(`Organisation ${orgId} not found`);
    if (command === "rate-limit") {
      const perKey = values["per-key"] === undefined ? perMinute : whole(values["per-key"], "per-key", 1_000_000);
      await updateOrganisationSettings(orgId, { rateLimitPerMinute: perMinute, keyRateLimitPerMinute: perKey });
      console.log(JSON.stringify({ orgId, rateLimitPerMinute: perMinute, keyRateLimitPerMinute: perKey }));
      return;
    }
    const rollupDays =
      values["rollup-days"] === undefined
        ? (organisation.rollupRetentionDays ?? DEFAULT_ROLLUP_RETENTION_DAYS)
        : days(values["rollup-days"], "rollup-days");
    await updateOrganisationSettings(orgId, { retentionDays, rollupRetentionDays: rollupDays });
    console.log(JSON.stringify({ orgId, retentionDays, rollupRetentionDays: rollupDays }));
  } finally {
    await database.close();
  }
}

await runCli(run);
