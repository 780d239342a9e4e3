import { App, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { CfnRole, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Code, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { CfnBucket } from "aws-cdk-lib/aws-s3";
import { beforeAll, describe, expect, it } from "vitest";
import {
  MAX_PAYLOAD_RETENTION_DAYS,
  RETENTION_TIERS_DAYS,
  retentionTierDays,
} from "../../functions/store/payloads/payload-layout.js";
import { ACCESS_LOGS_REASON, PayloadBucket } from "../../lib/constructs/payload-bucket.js";
import { acknowledgementsIn, awsSolutionsFindings } from "./nag-findings.js";

/** A bare stack with the bucket and one role per kind of grant: no Lambda function, so no bundling. */
let stack: Stack;
let payloads: PayloadBucket;
let template: Template;
let roles: Readonly<Record<"writer" | "reader" | "deleter", Role>>;

interface LifecycleRuleJson {
  readonly Id: string;
  readonly Status: string;
  readonly Prefix?: string;
  readonly ExpirationInDays?: number;
  readonly TagFilters?: readonly { readonly Key: string; readonly Value: string }[];
}
interface PolicyResource {
  readonly Properties: {
    readonly Roles: readonly unknown[];
    readonly PolicyDocument: { readonly Statement: readonly unknown[] };
  };
}

function bucketLogicalId(): string {
  const child = payloads.bucket.node.defaultChild;
  if (!(child instanceof CfnBucket)) throw new Error("payload bucket has no CfnBucket");
  return stack.getLogicalId(child);
}

function bucketArn() {
  return { "Fn::GetAtt": [bucketLogicalId(), "Arn"] };
}

function payloadObjectsArn() {
  return { "Fn::Join": ["", [bucketArn(), "/payloads/*"]] };
}

function lifecycleRules(): readonly LifecycleRuleJson[] {
  const buckets = Object.values(
    template.findResources("AWS::S3::Bucket") as Record<
      string,
      { Properties: { LifecycleConfiguration: { Rules: readonly LifecycleRuleJson[] } } }
    >,
  );
  expect(buckets).toHaveLength(1);
  return buckets[0]?.Properties.LifecycleConfiguration.Rules ?? [];
}

/** The statements of the one policy attached to `role`. */
function statementsOf(role: Role): readonly unknown[] {
  const child = role.node.defaultChild;
  if (!(child instanceof CfnRole)) throw new Error(`${role.node.path} has no CfnRole`);
  const logicalId = stack.getLogicalId(child);
  const policies = Object.values(template.findResources("AWS::IAM::Policy") as Record<string, PolicyResource>).filter(
    (policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: logicalId }]),
  );
  expect(policies).toHaveLength(1);
  return policies[0]?.Properties.PolicyDocument.Statement ?? [];
}

beforeAll(() => {
  // Prepare
  stack = new Stack(new App(), "Payloads");
  const role = (name: string) =>
    new Role(stack, `${name}Role`, { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
  roles = { writer: role("writer"), reader: role("reader"), deleter: role("deleter") };

  // Act: the one synthesis of this file.
  payloads = new PayloadBucket(stack, "Payloads");
  payloads.grantWritePayloads(roles.writer);
  payloads.grantReadPayloads(roles.reader);
  payloads.grantDeletePayloads(roles.deleter);
  template = Template.fromStack(stack);
});

describe("PayloadBucket", () => {
  it("is one private, unversioned bucket without a hard-coded name, encrypted with S3-managed keys", () => {
    template.resourceCountIs("AWS::S3::Bucket", 1);
    template.hasResourceProperties("AWS::S3::Bucket", {
      BucketName: Match.absent(),
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
      VersioningConfiguration: Match.absent(),
      LoggingConfiguration: Match.absent(),
    });
  });

  it("is retained when the stack is deleted or the bucket replaced (payloads are data)", () => {
    template.hasResource("AWS::S3::Bucket", { DeletionPolicy: "Retain", UpdateReplacePolicy: "Retain" });
  });

  it("denies every request not made over TLS 1.2 or later", () => {
    template.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: { Ref: bucketLogicalId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: "Deny",
            Action: "s3:*",
            Principal: { AWS: "*" },
            Condition: { Bool: { "aws:SecureTransport": "false" } },
            Resource: [bucketArn(), { "Fn::Join": ["", [bucketArn(), "/*"]] }],
          }),
          Match.objectLike({
            Effect: "Deny",
            Action: "s3:*",
            Principal: { AWS: "*" },
            Condition: { NumericLessThan: { "s3:TlsVersion": 1.2 } },
          }),
        ]),
      },
    });
  });

  it("expires payloads per retention tier, by the tag the store sets, and untagged ones after the longest retention", () => {
    // Act
    const rules = lifecycleRules();

    // Assess
    expect(rules).toEqual([
      ...RETENTION_TIERS_DAYS.map((days) => ({
        Id: `ExpirePayloadsTier${days}Days`,
        Status: "Enabled",
        Prefix: "payloads/",
        TagFilters: [{ Key: "retention-days", Value: String(days) }],
        ExpirationInDays: days,
      })),
      {
        Id: "ExpireUntaggedPayloads",
        Status: "Enabled",
        Prefix: "payloads/",
        ExpirationInDays: MAX_PAYLOAD_RETENTION_DAYS,
        AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
      },
    ]);
  });

  it("never expires a payload before its event: every retention of 1–3650 days has a rule at least as long", () => {
    // Prepare
    const expiryByTag = new Map(
      lifecycleRules().flatMap((rule) =>
        rule.TagFilters?.[0] === undefined ? [] : [[rule.TagFilters[0].Value, rule.ExpirationInDays ?? 0] as const],
      ),
    );

    for (let retentionDays = 1; retentionDays <= MAX_PAYLOAD_RETENTION_DAYS; retentionDays++) {
      // Act
      const expiry = expiryByTag.get(String(retentionTierDays(retentionDays)));

      // Assess
      expect(expiry, `retention ${retentionDays} days`).toBeGreaterThanOrEqual(retentionDays);
    }
    expect(retentionTierDays(90)).toBe(90);
    expect(retentionTierDays(91)).toBe(180);
    expect(retentionTierDays(0.5)).toBe(1);
    expect(() => retentionTierDays(0)).toThrow(RangeError);
    expect(() => retentionTierDays(MAX_PAYLOAD_RETENTION_DAYS + 1)).toThrow(RangeError);
  });

  it("grants writers PutObject and PutObjectTagging on payloads/* only", () => {
    expect(statementsOf(roles.writer)).toEqual([
      { Effect: "Allow", Action: ["s3:PutObject", "s3:PutObjectTagging"], Resource: payloadObjectsArn() },
    ]);
  });

  it("grants readers GetObject on payloads/* and ListBucket (so a missing key is NoSuchKey, not AccessDenied)", () => {
    expect(statementsOf(roles.reader)).toEqual([
      { Effect: "Allow", Action: "s3:ListBucket", Resource: bucketArn() },
      { Effect: "Allow", Action: "s3:GetObject", Resource: payloadObjectsArn() },
    ]);
  });

  it("grants deleters ListBucket and DeleteObject on payloads/* only", () => {
    expect(statementsOf(roles.deleter)).toEqual([
      { Effect: "Allow", Action: "s3:ListBucket", Resource: bucketArn() },
      { Effect: "Allow", Action: "s3:DeleteObject", Resource: payloadObjectsArn() },
    ]);
  });

  it("passes the cdk-nag AwsSolutions checks, with only the access-log and payloads/* findings acknowledged", () => {
    // Act
    const findings = awsSolutionsFindings(stack);
    const acknowledged = acknowledgementsIn(stack);

    // Assess
    expect(findings.errors).toEqual([]);
    expect(findings.warnings).toEqual([]);
    const objectWildcard = `AwsSolutions-IAM5[Resource::<${bucketLogicalId()}.Arn>/payloads/*]`;
    expect(acknowledged.map(({ path, id }) => ({ path, id })).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "Payloads/deleterRole", id: objectWildcard },
      { path: "Payloads/Payloads/Bucket", id: "AwsSolutions-S1" },
      { path: "Payloads/readerRole", id: objectWildcard },
      { path: "Payloads/writerRole", id: objectWildcard },
    ]);
    expect(acknowledged.find(({ id }) => id === "AwsSolutions-S1")?.reason).toBe(ACCESS_LOGS_REASON);
  });

  it("acknowledges the payloads/* finding on the role that holds the policy when the grantee is a function with a sibling role", () => {
    // Prepare: like ApiFunction, the execution role is not below the function, so an acknowledgement on the function would not cover the role's policy.
    const probe = new Stack(new App(), "Probe");
    const role = new Role(probe, "FnRole", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
    const fn = new LambdaFunction(probe, "Fn", {
      runtime: Runtime.NODEJS_24_X,
      handler: "index.handler",
      code: Code.fromInline("export const handler = async () => ({});"),
      role,
    });
    const bucket = new PayloadBucket(probe, "Payloads");

    // Act
    bucket.grantWritePayloads(fn);
    const iam5 = awsSolutionsFindings(probe).errors.filter((line) => line.startsWith("AwsSolutions-IAM5"));

    // Assess
    expect(iam5).toEqual([]);
    expect(
      acknowledgementsIn(probe)
        .filter(({ id }) => id.startsWith("AwsSolutions-IAM5"))
        .map(({ path }) => path),
    ).toEqual(["Probe/FnRole"]);
  });
});
