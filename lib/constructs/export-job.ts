import * as path from "node:path";
import { Duration } from "aws-cdk-lib";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";
import { ApiFunction } from "./api-function.js";

/** The export function's memory: a run holds a unit's rows and its Parquet file in memory (and 2 vCPU share). */
export const EXPORT_FUNCTION_MEMORY_MB = 2048;
/** Lambda's longest: a run stops taking new units before it, and the next run goes on from its last commit. */
export const EXPORT_FUNCTION_TIMEOUT = Duration.minutes(15);

/** Properties of {@link ExportJob}. */
export interface ExportJobProps {
  /** The handler module, relative to the project root. */
  readonly entry: string;
  readonly projectRoot: string;
  readonly environment: Readonly<Record<string, string>>;
  /** How often the schedule runs it; `false`: the rule is created disabled (on demand only). */
  readonly schedule: Duration | false;
  /** Reserved concurrency; `false`: none. */
  readonly reservedConcurrency: number | false;
}

/**
 * The export function (functions/export/export-handler.ts) and the EventBridge rule that runs it. A run is
 * incremental (the changes since the last committed run), so a missed or failed scheduled run is not retried:
 * the next one picks up everything. At most one run at a time: the run lock in the table, and reserved
 * concurrency 1 by default so a second invocation is throttled instead of waiting on the lock.
 */
export class ExportJob extends Construct {
  readonly handler: ApiFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: ExportJobProps) {
    super(scope, id);
    this.handler = new ApiFunction(this, "Function", {
      entry: path.join(props.projectRoot, props.entry),
      projectRoot: props.projectRoot,
      description: "Exports what changed since the last committed run as Parquet to the export bucket (issue 35)",
      memorySize: EXPORT_FUNCTION_MEMORY_MB,
      timeout: EXPORT_FUNCTION_TIMEOUT,
      environment: props.environment,
    });
    if (props.reservedConcurrency !== false) {
      (this.handler.function.node.defaultChild as CfnFunction).reservedConcurrentExecutions = props.reservedConcurrency;
    }
    const rate = props.schedule === false ? Duration.hours(1) : props.schedule;
    this.rule = new Rule(this, "Schedule", {
      description:
        props.schedule === false
          ? "Runs the export (disabled: on demand only, docs/export.md)"
          : `Runs the export every ${rate.toHumanString()}`,
      schedule: Schedule.rate(rate),
      enabled: props.schedule !== false,
    });
    this.rule.addTarget(
      new LambdaFunction(this.handler.function, { retryAttempts: 0, maxEventAge: Duration.minutes(5) }),
    );
  }
}
