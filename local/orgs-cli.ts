/**
 * `npm run orgs -- retention --org <org> --days <n> [--rollup-days <n>] [--aws]`:
 * how long an organisation keeps sessions and events (default 90 days) and
 * analytics rollups (default 400 days).
 */
import { parseArgs } from "node:util";
import { openCliDatabase } from "./cli-database.js";
import { requiredFlag, runCli, UsageError } from "./cli-program.js";

const USAGE = "Usage:\n  npm run orgs -- retention --org <org> --days <1-3650> [--rollup-days <1-3650>] [--aws]";

function days(value: string | undefined, flag: string): number {
  const parsed = Number(requiredFlag(value, flag, USAGE));
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 3650)
    throw new UsageError(`--${flag} must be 1 to 3650\n${USAGE}`);
  return parsed;
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: "string" },
      days: { type: "string" },
      "rollup-days": { type: "string" },
      aws: { type: "boolean", default: false },
    },
  });
  if (positionals[0] !== "retention") throw new UsageError(USAGE);
  const orgId = requiredFlag(values.org, "org", USAGE);
  const retentionDays = days(values.days, "days");
  const database = await openCliDatabase({ aws: values.aws });
  try {
    const { findOrganisation, setRetention } = await import("../functions/store/organisation-store.js");
    const { DEFAULT_ROLLUP_RETENTION_DAYS } = await import("../functions/store/retention.js");
    const organisation = await findOrganisation(orgId);
    if (organisation === undefined) throw new Error(`Organisation ${orgId} not found`);
    const rollupDays =
      values["rollup-days"] === undefined
        ? (organisation.rollupRetentionDays ?? DEFAULT_ROLLUP_RETENTION_DAYS)
        : days(values["rollup-days"], "rollup-days");
    await setRetention(orgId, retentionDays, rollupDays);
    console.log(JSON.stringify({ orgId, retentionDays, rollupRetentionDays: rollupDays }));
  } finally {
    await database.close();
  }
}

await runCli(run);
