import { Duration } from "aws-cdk-lib";
import { Effect, type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Bucket } from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { grantOnObjectPrefixes, privateBucket } from "./private-bucket.js";

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
 * `table=<t>/org=<org>/env=<env>/day=<day>/`: a private bucket (private-bucket.ts) — not versioned, so a unit's
 * file is replaced whole and an erased user is really gone.
 */
export class ExportBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = privateBucket(this, "Bucket", {
      // The writer's multipart uploads of large files: never let a failed one linger.
      lifecycleRules: [{ id: "AbortIncompleteUploads", abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      accessLogsReason: EXPORT_ACCESS_LOGS_REASON,
    });
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

  private grant(grantee: IGrantable, statements: readonly PolicyStatement[]): readonly PolicyStatement[] {
    return grantOnObjectPrefixes(this.bucket, grantee, statements, {
      prefixes: EXPORT_OBJECT_PREFIXES,
      reason: EXPORT_OBJECT_WILDCARD_REASON,
    });
  }
}
