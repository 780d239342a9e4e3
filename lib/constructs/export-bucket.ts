import { Duration, RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import { Effect, type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { BlockPublicAccess, Bucket, BucketEncryption, CfnBucket, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { Construct, type IConstruct } from "constructs";

/** The export's object prefixes (functions/export/export-layout.ts): the tables' files and the manifests. */
export const EXPORT_OBJECT_PREFIXES = ["table=", "manifests/"] as const;

/** Why the export bucket has no server access logs (AwsSolutions-S1); exported for the test. */
export const EXPORT_ACCESS_LOGS_REASON =
  "Server access logging is off by decision, as for the payload bucket: the export bucket is written only by the stack's export function (one PUT per changed unit and run) and read by Athena on behalf of the platform team and by the presigned URLs GET /api/exports hands an organisation's admin, which the API's access log and the function's request log already record (who asked for which organisation's files). Access logs would add a bucket and one object per request. Operators who need object-level audit can enable CloudTrail S3 data events for this bucket instead.";

/** Why the object grants end in a wildcard (AwsSolutions-IAM5); exported for the test. */
export const EXPORT_OBJECT_WILDCARD_REASON =
  "The export's object keys are per table, organisation, environment, day and hour (table=<t>/org=<org>/env=<env>/day=<day>/<unit>-<hh>.parquet) and per run (manifests/…/<runId>.json), unknown at deploy time, so object actions are granted on table=* and manifests/* of the dedicated export bucket only, never on the whole bucket or another resource; actions are listed one by one, with no action wildcard. An IAM role cannot be limited to one organisation's prefix: GET /api/exports checks every key it hands out in code (docs/export.md).";

/**
 * The export bucket (issue 35): the Parquet files and manifests of the incremental export, Hive-partitioned
 * `table=<t>/org=<org>/env=<env>/day=<day>/`. Private (all public access blocked, ACLs disabled), SSE-S3 as the
 * payload bucket (the writer asks for AES256 on each PUT too), TLS 1.2+ only, not versioned (a unit's file is
 * replaced whole and an erased user must really be gone), retained with the stack (it is data).
 */
export class ExportBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new Bucket(this, "Bucket", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: false,
      // The writer makes single PUTs; never let a stray multipart upload linger.
      lifecycleRules: [{ id: "AbortIncompleteUploads", abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.bucket).acknowledge({ id: "AwsSolutions-S1", reason: EXPORT_ACCESS_LOGS_REASON });
  }

  /** `<bucket ARN>/<prefix>*` of each export prefix. */
  objectArns(): string[] {
    return EXPORT_OBJECT_PREFIXES.map((prefix) => this.bucket.arnForObjects(`${prefix}*`));
  }

  /**
   * The export function: list the bucket, read, write and delete the files and manifests (a unit left without
   * rows loses its file; a rerun replaces files), and abort its own multipart upload of a large file that failed.
   */
  grantExportWrite(grantee: IGrantable): readonly PolicyStatement[] {
    return this.grant(grantee, [
      new PolicyStatement({ effect: Effect.ALLOW, actions: ["s3:ListBucket"], resources: [this.bucket.bucketArn] }),
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:DeleteObject"],
        resources: this.objectArns(),
      }),
    ]);
  }

  /**
   * `GET /api/exports`: list the manifests only (`s3:prefix` `manifests/*`), read the files and manifests (what
   * its presigned URLs need). Never a write.
   */
  grantExportRead(grantee: IGrantable): readonly PolicyStatement[] {
    return this.grant(grantee, [
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ["s3:ListBucket"],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { "s3:prefix": ["manifests/*"] } },
      }),
      new PolicyStatement({ effect: Effect.ALLOW, actions: ["s3:GetObject"], resources: this.objectArns() }),
    ]);
  }

  /** Adds the statements and acknowledges, on the grantee's principal, the IAM5 findings of the object prefixes. */
  private grant(grantee: IGrantable, statements: readonly PolicyStatement[]): readonly PolicyStatement[] {
    const principal = grantee.grantPrincipal;
    for (const statement of statements) principal.addToPrincipalPolicy(statement);
    if (isConstruct(principal)) {
      for (const prefix of EXPORT_OBJECT_PREFIXES) {
        Validations.of(principal).acknowledge({
          id: `AwsSolutions-IAM5[Resource::<${this.bucketLogicalId()}.Arn>/${prefix}*]`,
          reason: EXPORT_OBJECT_WILDCARD_REASON,
        });
      }
    }
    return statements;
  }

  private bucketLogicalId(): string {
    const cfn = this.bucket.node.defaultChild;
    if (!(cfn instanceof CfnBucket)) throw new Error(`${this.bucket.node.path} has no CfnBucket`);
    return Stack.of(this).getLogicalId(cfn);
  }
}

function isConstruct(value: unknown): value is IConstruct {
  return typeof value === "object" && value !== null && "node" in value;
}
