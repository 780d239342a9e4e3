import { Duration } from "aws-cdk-lib";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { Construct } from "constructs";

/** How often the monitors are evaluated (issue 34: every minute). */
export const MONITOR_EVALUATION_RATE = Duration.minutes(1);

/** Properties of {@link MonitorSchedule}. */
export interface MonitorScheduleProps {
  /** The evaluator (functions/alerts/evaluate-monitors.ts). */
  readonly evaluator: IFunction;
}

/**
 * The EventBridge rule that runs the monitors' evaluator once a minute. A missed or failed run is not retried:
 * the next minute's run evaluates every monitor again (an evaluation is idempotent per minute), so an event older
 * than a minute is dropped rather than evaluated late. The rule may invoke the evaluator and nothing else
 * (the target's resource policy names the rule).
 */
export class MonitorSchedule extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: MonitorScheduleProps) {
    super(scope, id);
    this.rule = new Rule(this, "Rule", {
      description: "Evaluates the alert monitors every minute",
      schedule: Schedule.rate(MONITOR_EVALUATION_RATE),
    });
    this.rule.addTarget(new LambdaFunction(props.evaluator, { retryAttempts: 0, maxEventAge: Duration.seconds(60) }));
  }
}
