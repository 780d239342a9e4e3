import { Duration } from "aws-cdk-lib";
import { Effect, type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Bucket, LifecycleRule } from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import {
  MAX_PAYLOAD_RETENTION_DAYS,
  PAYLOAD_PREFIX,
  RETENTION_TAG,
  RETENTION_TIERS_DAYS,
} from "../../functions/store/payloads/payload-layout.js";
import { grantOnObjectPrefixes, privateBucket } from "./private-bucket.js";

/**
 * Why the payload bucket has no server access logs (AwsSolutions-S1). Kept as
 * a constant so the test can check the acknowledgement is this one.
 */
export const ACCESS_LOGS_REASON =
  "Server access logging is off by decision: the bucket holds only offloaded event payloads, written and read by the service's own Lambda roles (one PUT per large field, GETs on reads), never by people or other principals, and the bucket blocks all public access and refuses non-TLS requests. Access logs would add a second bucket and one log object per request, roughly doubling the request and storage bill of the hot event path while recording nothing the API Gateway access log and the functions' logs do not already record (who asked for which session). Operators who need object-level audit can enable CloudTrail S3 data events for this bucket instead.";

/** Why object-level grants end in a wildcard (AwsSolutions-IAM5); exported so tests can check the acknowledgement is this one. */
export const OBJECT_WILDCARD_REASON = `The object keys are per event (${PAYLOAD_PREFIX}<orgId>/<environment>/<sessionId>/<eventId>/<field>) and unknown at deploy time, so object actions are granted on ${PAYLOAD_PREFIX}* of the dedicated payload bucket only, never on the whole bucket or another resource; the actions themselves are listed one by one, with no action wildcard.`;

/**
 * The rules that expire offloaded payloads: one per retention tier
 * (`RETENTION_TIERS_DAYS`), matching the `retention-days` tag the payload
 * store puts on each object, plus a catch-all for an untagged object under
 * the prefix, which expires after the longest retention. Where several rules
 * apply to one object S3 applies the shortest expiration, so the catch-all
 * never keeps a tagged object longer than its tier.
 */
function expiryRules(): LifecycleRule[] {
  return [
    ...RETENTION_TIERS_DAYS.map(
      (days): LifecycleRule => ({
        id: `ExpirePayloadsTier${days}Days`,
        prefix: PAYLOAD_PREFIX,
        tagFilters: { [RETENTION_TAG]: String(days) },
        expiration: Duration.days(days),
      }),
    ),
    {
      id: "ExpireUntaggedPayloads",
      prefix: PAYLOAD_PREFIX,
      expiration: Duration.days(MAX_PAYLOAD_RETENTION_DAYS),
      // Not used by the store (single PUTs), but never let a stray upload linger.
      abortIncompleteMultipartUploadAfter: Duration.days(1),
    },
  ];
}

/**
 * The S3 bucket for event fields too large for a DynamoDB item (see
 * `functions/store/payloads/payload-store.ts`).
 *
 * A private bucket (private-bucket.ts): all public access blocked, SSE-S3,
 * TLS 1.2+ only, retained with the stack; not versioned, so a retried write
 * overwrites its object, and a deleted session or an expired payload is
 * really gone.
 *
 * Retention: DynamoDB TTL deletes each event item at its organisation's
 * retention; S3 cannot read that TTL, so every object carries the tag
 * `retention-days` = the smallest lifecycle tier not shorter than the
 * organisation's retention when it was written, and one lifecycle rule per
 * tier expires it. S3 therefore never deletes a payload while its event can
 * still be read, and a payload outlives its event by at most the gap to the
 * next tier (plus S3's lifecycle delay, which rounds to the next midnight
 * UTC and runs asynchronously): e.g. with the default 90-day retention, both
 * go after 90 days; an organisation keeping data 100 days has its payloads
 * expire after 180. Deleting a session (or a user's data) deletes its
 * payloads at once, through the payload store.
 */
export class PayloadBucket extends Construct {
  /** The bucket. */
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.bucket = privateBucket(this, "Bucket", {
      lifecycleRules: expiryRules(),
      accessLogsReason: ACCESS_LOGS_REASON,
    });
  }

  /** `arn:…:<bucket>/payloads/*`: every payload object, nothing else. */
  private payloadObjectsArn(): string {
    return this.bucket.arnForObjects(`${PAYLOAD_PREFIX}*`);
  }

  /**
   * Lets `grantee` offload fields: `s3:PutObject` and `s3:PutObjectTagging`
   * (the retention tag is set in the PUT) on the payload objects.
   */
  grantWritePayloads(grantee: IGrantable): readonly PolicyStatement[] {
    return this.grant(grantee, [
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ["s3:PutObject", "s3:PutObjectTagging"],
        resources: [this.payloadObjectsArn()],
      }),
    ]);
  }

  /**
   * Lets `grantee` resolve offloaded fields: `s3:GetObject` on the payload
   * objects, and `s3:ListBucket` on the bucket, without which S3 reports a
   * missing key as `AccessDenied` instead of `NoSuchKey` (the store then
   * cannot tell a missing payload from a permission problem).
   */
  grantReadPayloads(grantee: IGrantable): readonly PolicyStatement[] {
    return this.grant(grantee, [
      new PolicyStatement({ effect: Effect.ALLOW, actions: ["s3:ListBucket"], resources: [this.bucket.bucketArn] }),
      new PolicyStatement({ effect: Effect.ALLOW, actions: ["s3:GetObject"], resources: [this.payloadObjectsArn()] }),
    ]);
  }

  /**
   * Lets `grantee` delete payloads (a session's, on its deletion, or those of
   * a refused write): `s3:ListBucket` on the bucket and `s3:DeleteObject` on
   * the payload objects (DeleteObjects needs no other action).
   */
  grantDeletePayloads(grantee: IGrantable): readonly PolicyStatement[] {
    return this.grant(grantee, [
      new PolicyStatement({ effect: Effect.ALLOW, actions: ["s3:ListBucket"], resources: [this.bucket.bucketArn] }),
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ["s3:DeleteObject"],
        resources: [this.payloadObjectsArn()],
      }),
    ]);
  }

  private grant(grantee: IGrantable, statements: readonly PolicyStatement[]): readonly PolicyStatement[] {
    return grantOnObjectPrefixes(this.bucket, grantee, statements, {
      prefixes: [PAYLOAD_PREFIX],
      reason: OBJECT_WILDCARD_REASON,
    });
  }
}
