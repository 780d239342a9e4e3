/**
 * Runs the cdk-nag AwsSolutions pack over a construct tree and reports what
 * is left after acknowledgements, as readable strings (so a failing assertion
 * names the rule, the construct and the reason).
 *
 * cdk-nag 3 is a CDK policy-validation plugin: acknowledgements are made with
 * `Validations.of(construct).acknowledge({ id, reason })` (in `lib/`), and
 * `validateScope` checks a tree directly, without a CLI run.
 */
import { Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import type { IConstruct } from "constructs";

/** Unacknowledged AwsSolutions findings, split by severity. */
export interface NagFindings {
  /** `"<rule> at <construct path>: <explanation>"`, one per rule and resource. */
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

/** Checks `scope` (and everything below it) with the AwsSolutions pack. */
export function awsSolutionsFindings(scope: IConstruct): NagFindings {
  const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(scope);
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const violation of report.violations) {
    for (const resource of violation.violatingResources) {
      const line = `${violation.ruleName} at ${resource.constructPath ?? resource.resourceLogicalId ?? "?"}: ${violation.description}`;
      (violation.severity === "warning" ? warnings : errors).push(line);
    }
  }
  return { errors, warnings };
}

/** One acknowledged rule: where, which, and the written reason. */
export interface Acknowledgement {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

/** Every rule acknowledged in the tree below (and including) `scope`. */
export function acknowledgementsIn(scope: IConstruct): readonly Acknowledgement[] {
  const found: Acknowledgement[] = [];
  for (const construct of scope.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      const data: unknown = entry.data;
      if (typeof data !== "object" || data === null) continue;
      for (const [key, reason] of Object.entries(data)) {
        found.push({
          path: construct.node.path,
          // aws-cdk-lib records rule ids with an annotation prefix; cdk-nag strips it too.
          id: key.replace(/^annotation::/i, ""),
          reason: String(reason),
        });
      }
    }
  }
  return found;
}
