/**
 * The export function (issue 35): run by the stack's EventBridge schedule (hourly unless the stack says otherwise)
 * or on demand (`aws lambda invoke --function-name <ExportFunctionName> out.json`, any payload). It starts no new
 * unit within two minutes of its timeout (the units left go to the next run) and answers what the run did.
 */
import type { Context } from "aws-lambda";
import { type ExportRunResult, runExport } from "./export-run.js";

/** Time kept for the unit in progress, the manifests and the state when the budget ends. */
const MARGIN_MS = 2 * 60_000;

export async function handler(
  _event: unknown,
  context?: Pick<Context, "getRemainingTimeInMillis">,
): Promise<ExportRunResult> {
  const remaining = context?.getRemainingTimeInMillis();
  return runExport(remaining === undefined ? {} : { budgetMs: Math.max(0, remaining - MARGIN_MS) });
}
