import { RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import type { IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  CfnBucket,
  type LifecycleRule,
  ObjectOwnership,
} from "aws-cdk-lib/aws-s3";
import type { Construct, IConstruct } from "constructs";

/** Properties of {@link privateBucket}. */
export interface PrivateBucketProps {
  readonly lifecycleRules?: LifecycleRule[];
  /** Why the bucket has no server access logs (the AwsSolutions-S1 acknowledgement). */
  readonly accessLogsReason: string;
}

/**
 * A bucket of the stack, as each of them is (the payloads, the export, the console's files): private (all public
 * access blocked, ACLs disabled), SSE-S3 (no KMS key to grant or pay per request for; the writers ask for AES256 on
 * each PUT too), TLS 1.2+ only, not versioned (an object replaced or deleted must really be gone, not kept as an
 * older version), retained when the stack is deleted.
 */
export function privateBucket(scope: Construct, id: string, props: PrivateBucketProps): Bucket {
  const bucket = new Bucket(scope, id, {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    versioned: false,
    ...(props.lifecycleRules === undefined ? {} : { lifecycleRules: props.lifecycleRules }),
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(bucket).acknowledge({ id: "AwsSolutions-S1", reason: props.accessLogsReason });
  return bucket;
}

/**
 * Adds the statements to the grantee's principal policy and acknowledges, on that principal, the one
 * AwsSolutions-IAM5 finding of each object prefix they are granted on (`<bucket>/<prefix>*`; any other wildcard
 * still fails). Returns the statements added.
 *
 * The acknowledgement goes on the principal, not on the grantee: for a Lambda function the policy is
 * `<role>/DefaultPolicy`, and an execution role is usually a sibling of the function in the construct tree (as
 * in `ApiFunction`), so an acknowledgement on the function would not cover it.
 */
export function grantOnObjectPrefixes(
  bucket: Bucket,
  grantee: IGrantable,
  statements: readonly PolicyStatement[],
  prefixes: { readonly prefixes: readonly string[]; readonly reason: string },
): readonly PolicyStatement[] {
  const principal = grantee.grantPrincipal;
  for (const statement of statements) principal.addToPrincipalPolicy(statement);
  if (isConstruct(principal)) {
    for (const prefix of prefixes.prefixes) {
      Validations.of(principal).acknowledge({
        // IAM5 is granular: the finding names the wildcard resource, by the bucket's logical id.
        id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId(bucket)}.Arn>/${prefix}*]`,
        reason: prefixes.reason,
      });
    }
  }
  return statements;
}

function bucketLogicalId(bucket: Bucket): string {
  const cfn = bucket.node.defaultChild;
  if (!(cfn instanceof CfnBucket)) throw new Error(`${bucket.node.path} has no CfnBucket`);
  return Stack.of(bucket).getLogicalId(cfn);
}

function isConstruct(value: unknown): value is IConstruct {
  return typeof value === "object" && value !== null && "node" in value;
}
