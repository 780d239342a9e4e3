import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { App, type CfnElement, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { CachePolicy, CfnDistribution, type CfnFunction, OriginRequestPolicy } from "aws-cdk-lib/aws-cloudfront";
import type { CfnUserPoolClient, CfnUserPoolDomain } from "aws-cdk-lib/aws-cognito";
import { CfnBucket } from "aws-cdk-lib/aws-s3";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { ConsoleDeployment, INVALIDATED_PATHS } from "../../lib/constructs/console-deployment.js";
import {
  API_PATH_PATTERN,
  ConsoleSite,
  consoleContentSecurityPolicy,
  SPA_ROUTING_FUNCTION_CODE,
} from "../../lib/constructs/console-site.js";
import { AgentTrackingStack, CONSOLE_ASSET_CONTEXT_KEY } from "../../lib/service-stack.js";

/** A tiny prebuilt console, so this file checks the stack rather than the console build (one test below runs that). */
const CONSOLE_FIXTURE = fileURLToPath(new URL("./fixtures/console", import.meta.url));

/** The stack's synthesis (no handler is bundled, but the stack is large); allow for a slow machine. */
const SYNTH_TIMEOUT_MS = 180_000;

interface CacheBehaviorJson {
  readonly PathPattern?: string;
  readonly TargetOriginId: string;
  readonly ViewerProtocolPolicy: string;
  readonly AllowedMethods: readonly string[];
  readonly CachePolicyId: string;
  readonly OriginRequestPolicyId?: string;
  readonly ResponseHeadersPolicyId: unknown;
  readonly FunctionAssociations?: readonly { readonly EventType: string; readonly FunctionARN: unknown }[];
}
interface OriginJson {
  readonly Id: string;
  readonly DomainName: unknown;
  readonly OriginAccessControlId?: unknown;
  readonly S3OriginConfig?: { readonly OriginAccessIdentity: string };
  readonly CustomOriginConfig?: {
    readonly OriginProtocolPolicy: string;
    readonly OriginSSLProtocols: readonly string[];
  };
}
interface DistributionConfigJson {
  readonly DefaultRootObject: string;
  readonly DefaultCacheBehavior: CacheBehaviorJson;
  readonly CacheBehaviors: readonly CacheBehaviorJson[];
  readonly Origins: readonly OriginJson[];
  readonly CustomErrorResponses?: unknown;
}

let stack: AgentTrackingStack;
let template: Template;

function logicalIdOf(construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

function distributionId(): string {
  const cfn = stack.consoleSite.distribution.node.defaultChild;
  if (!(cfn instanceof CfnDistribution)) throw new Error("distribution has no CfnDistribution");
  return stack.getLogicalId(cfn);
}

function distributionConfig(): DistributionConfigJson {
  const resource = template.findResources("AWS::CloudFront::Distribution")[distributionId()];
  return (resource as { Properties: { DistributionConfig: DistributionConfigJson } }).Properties.DistributionConfig;
}

function consoleBucketId(): string {
  const cfn = stack.consoleSite.bucket.node.defaultChild;
  if (!(cfn instanceof CfnBucket)) throw new Error("console bucket has no CfnBucket");
  return stack.getLogicalId(cfn);
}

function originOf(behavior: CacheBehaviorJson): OriginJson | undefined {
  return distributionConfig().Origins.find((origin) => origin.Id === behavior.TargetOriginId);
}

function apiBehavior(): CacheBehaviorJson | undefined {
  return distributionConfig().CacheBehaviors.find((behavior) => behavior.PathPattern === API_PATH_PATTERN);
}

/** `https://<distribution domain><path>` as CloudFormation renders it. */
function onDistribution(path: string) {
  const domain = { "Fn::GetAtt": [distributionId(), "DomainName"] };
  return { "Fn::Join": ["", path === "" ? ["https://", domain] : ["https://", domain, path]] };
}

/** A resolved string token as text: `Fn::Join` joined, `Ref`/`Fn::GetAtt` written as `{…}`, other intrinsics as JSON. */
function flatten(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) {
    if ("Ref" in value) return `{${String(value.Ref)}}`;
    if ("Fn::GetAtt" in value) return `{${(value["Fn::GetAtt"] as string[]).join(".")}}`;
    if ("Fn::Join" in value) {
      const [separator, parts] = value["Fn::Join"] as [string, unknown[]];
      return parts.map(flatten).join(separator);
    }
  }
  return JSON.stringify(value);
}

/** The SPA routing function's handler, evaluated as CloudFront Functions would run it. */
function spaHandler(): (event: { request: { uri: string } }) => { uri: string } {
  return new Function(`${SPA_ROUTING_FUNCTION_CODE}\nreturn handler;`)() as (event: { request: { uri: string } }) => {
    uri: string;
  };
}

beforeAll(() => {
  // Prepare: the same feature flags `cdk synth` uses, and the prebuilt fixture console.
  const cdkJson = JSON.parse(readFileSync(new URL("../../cdk.json", import.meta.url), "utf8")) as {
    context?: Record<string, unknown>;
  };
  // No handler is bundled (the CDK's `aws:cdk:bundling-stacks` context): this file checks the console's part of the
  // template, which bundling does not change; test/cdk/service-stack.test.ts bundles every handler and reads them.
  const app = new App({
    context: { ...cdkJson.context, [CONSOLE_ASSET_CONTEXT_KEY]: CONSOLE_FIXTURE, "aws:cdk:bundling-stacks": [] },
  });

  // Act: one synthesis for the whole file.
  stack = new AgentTrackingStack(app, "ConsoleTest");
  template = Template.fromStack(stack);
}, SYNTH_TIMEOUT_MS);

describe("console bucket", () => {
  it("is private: all public access blocked, ACLs disabled, SSE-S3, no website hosting", () => {
    template.hasResourceProperties("AWS::S3::Bucket", {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
      },
    });
    const bucket = template.findResources("AWS::S3::Bucket")[consoleBucketId()];
    expect(bucket?.Properties).not.toHaveProperty("WebsiteConfiguration");
    expect(bucket?.Properties).not.toHaveProperty("BucketName");
  });

  it("refuses requests not made over TLS 1.2+, and lets only this distribution read objects (OAC)", () => {
    // Prepare
    const bucketArn = { "Fn::GetAtt": [consoleBucketId(), "Arn"] };
    const objects = { "Fn::Join": ["", [bucketArn, "/*"]] };

    // Act
    const policies = Object.values(
      template.findResources("AWS::S3::BucketPolicy", { Properties: { Bucket: { Ref: consoleBucketId() } } }),
    ) as { Properties: { PolicyDocument: { Statement: readonly Record<string, unknown>[] } } }[];
    const statements = policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement);

    // Assess
    expect(policies).toHaveLength(1);
    expect(statements).toEqual([
      expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
      expect.objectContaining({ Effect: "Deny", Condition: { NumericLessThan: { "s3:TlsVersion": 1.2 } } }),
      {
        Effect: "Allow",
        Principal: { Service: "cloudfront.amazonaws.com" },
        Action: "s3:GetObject",
        Resource: objects,
        Condition: {
          StringEquals: {
            "AWS:SourceArn": {
              "Fn::Join": [
                "",
                [
                  "arn:",
                  { Ref: "AWS::Partition" },
                  ":cloudfront::",
                  { Ref: "AWS::AccountId" },
                  ":distribution/",
                  { Ref: distributionId() },
                ],
              ],
            },
          },
        },
      },
    ]);
  });
});

describe("distribution", () => {
  it("is the only distribution, with index.html as the root object and no distribution-wide error rewriting", () => {
    template.resourceCountIs("AWS::CloudFront::Distribution", 1);
    expect(distributionConfig().DefaultRootObject).toBe("index.html");
    expect(distributionConfig()).not.toHaveProperty("CustomErrorResponses");
  });

  it("serves the console from the bucket through Origin Access Control (no legacy OAI)", () => {
    // Prepare
    const [oacId] = Object.keys(template.findResources("AWS::CloudFront::OriginAccessControl"));

    // Act
    const origin = originOf(distributionConfig().DefaultCacheBehavior);

    // Assess
    template.resourceCountIs("AWS::CloudFront::OriginAccessControl", 1);
    template.hasResourceProperties("AWS::CloudFront::OriginAccessControl", {
      OriginAccessControlConfig: {
        OriginAccessControlOriginType: "s3",
        SigningBehavior: "always",
        SigningProtocol: "sigv4",
      },
    });
    expect(origin).toEqual({
      Id: expect.any(String),
      DomainName: { "Fn::GetAtt": [consoleBucketId(), "RegionalDomainName"] },
      OriginAccessControlId: { "Fn::GetAtt": [oacId, "Id"] },
      S3OriginConfig: { OriginAccessIdentity: "" },
    });
    template.resourceCountIs("AWS::CloudFront::CloudFrontOriginAccessIdentity", 0);
  });

  it("redirects the console's HTTP requests to HTTPS, allows GET/HEAD only and caches with CachingOptimized", () => {
    expect(distributionConfig().DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: "redirect-to-https",
      AllowedMethods: ["GET", "HEAD"],
      CachePolicyId: CachePolicy.CACHING_OPTIMIZED.cachePolicyId,
    });
  });

  it("routes /api/* to the HTTP API over HTTPS only, every method, caching disabled, all viewer headers but Host", () => {
    // Act
    const behavior = apiBehavior();
    const origin = behavior === undefined ? undefined : originOf(behavior);

    // Assess
    expect(distributionConfig().CacheBehaviors).toHaveLength(1);
    expect(behavior).toMatchObject({
      ViewerProtocolPolicy: "https-only",
      AllowedMethods: ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"],
      CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
      OriginRequestPolicyId: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
    });
    expect(origin).toEqual({
      Id: expect.any(String),
      DomainName: {
        "Fn::Select": [2, { "Fn::Split": ["/", { "Fn::GetAtt": [logicalIdOf(stack.api), "ApiEndpoint"] }] }],
      },
      CustomOriginConfig: { OriginProtocolPolicy: "https-only", OriginSSLProtocols: ["TLSv1.2"] },
    });
  });

  it("rewrites client-side routes with a viewer-request function on the console behaviour only, never on /api/*", () => {
    // Prepare
    const functionId = stack.getLogicalId(stack.consoleSite.spaRouting.node.defaultChild as CfnFunction);

    // Assess
    template.resourceCountIs("AWS::CloudFront::Function", 1);
    template.hasResourceProperties("AWS::CloudFront::Function", {
      AutoPublish: true,
      FunctionCode: SPA_ROUTING_FUNCTION_CODE,
      FunctionConfig: Match.objectLike({ Runtime: "cloudfront-js-2.0" }),
    });
    expect(distributionConfig().DefaultCacheBehavior.FunctionAssociations).toEqual([
      { EventType: "viewer-request", FunctionARN: { "Fn::GetAtt": [functionId, "FunctionARN"] } },
    ]);
    expect(apiBehavior()).not.toHaveProperty("FunctionAssociations");
  });

  it.each([
    ["/", "/index.html"],
    ["/sessions", "/index.html"],
    ["/sessions/01J9Z8/events", "/index.html"],
    ["/auth/callback", "/index.html"],
    ["/index.html", "/index.html"],
    ["/assets/index-CS7lty77.js", "/assets/index-CS7lty77.js"],
    ["/console-config.json", "/console-config.json"],
  ])("serves %s as %s (SPA routing function)", (uri, expected) => {
    expect(spaHandler()({ request: { uri } }).uri).toBe(expected);
  });
});

describe("security headers", () => {
  it("apply the same response headers policy to the console and to /api/*", () => {
    // Prepare
    const policy = { Ref: logicalIdOf(stack.consoleSite.responseHeadersPolicy) };

    // Assess
    template.resourceCountIs("AWS::CloudFront::ResponseHeadersPolicy", 1);
    expect(distributionConfig().DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual(policy);
    expect(apiBehavior()?.ResponseHeadersPolicyId).toEqual(policy);
  });

  it("send HSTS (2 years, subdomains), nosniff, X-Frame-Options DENY and strict-origin-when-cross-origin", () => {
    template.hasResourceProperties("AWS::CloudFront::ResponseHeadersPolicy", {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          StrictTransportSecurity: { AccessControlMaxAgeSec: 63_072_000, IncludeSubdomains: true, Override: true },
          ContentTypeOptions: { Override: true },
          FrameOptions: { FrameOption: "DENY", Override: true },
          ReferrerPolicy: { ReferrerPolicy: "strict-origin-when-cross-origin", Override: true },
        }),
      }),
    });
  });

  it("send a CSP allowing only the console's origin, plus the Cognito domain for token calls and sign-out", () => {
    // Prepare
    const cognito = "https://{ats-<stack uuid>}.auth.{AWS::Region}.amazoncognito.com";

    // Act
    const [policy] = Object.values(template.findResources("AWS::CloudFront::ResponseHeadersPolicy"));
    const csp = policy?.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy;
    const text = flatten(csp?.ContentSecurityPolicy).replaceAll(
      flatten({ "Fn::Join": ["-", ["ats", { "Fn::Select": [2, { "Fn::Split": ["/", { Ref: "AWS::StackId" }] }] }]] }),
      "{ats-<stack uuid>}",
    );

    // Assess
    expect(csp?.Override).toBe(true);
    expect(text).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        `connect-src 'self' ${cognito}; frame-ancestors 'none'; base-uri 'self'; ` +
        `form-action 'self' ${cognito}; object-src 'none'`,
    );
    expect(text).not.toContain("unsafe-inline");
    expect(text).not.toContain("unsafe-eval");
  });

  it("build the CSP from the sign-in origin it is given", () => {
    expect(consoleContentSecurityPolicy("https://acme.auth.eu-west-1.amazoncognito.com")).toContain(
      "connect-src 'self' https://acme.auth.eu-west-1.amazoncognito.com;",
    );
  });
});

describe("Cognito sign-in for the console", () => {
  function clientId(): string {
    return stack.getLogicalId(stack.users.client.node.defaultChild as CfnUserPoolClient);
  }

  it("sends the authorization code to the distribution's /auth/callback, and signs out to its root", () => {
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      CallbackURLs: [onDistribution("/auth/callback")],
      LogoutURLs: [onDistribution("/")],
    });
  });

  it("is a public client (no secret) with the code grant only (PKCE), openid/email/profile", () => {
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ["code"],
      AllowedOAuthScopes: ["openid", "email", "profile"],
      AccessTokenValidity: 60,
      RefreshTokenValidity: 30 * 24 * 60,
    });
  });

  it("is the client whose tokens the key-management functions verify", () => {
    expect(stack.resolve(stack.users.tokenEnvironment().JWT_CLIENT_ID)).toEqual({ Ref: clientId() });
  });

  it("has a Cognito domain, prefixed ats-<stack UUID> unless the cognitoDomainPrefix context says otherwise", () => {
    template.hasResourceProperties("AWS::Cognito::UserPoolDomain", {
      Domain: { "Fn::Join": ["-", ["ats", { "Fn::Select": [2, { "Fn::Split": ["/", { Ref: "AWS::StackId" }] }] }]] },
    });
  });
});

describe("console deployment", () => {
  it("copies the build and console-config.json to the bucket, keeps old hashed assets, and invalidates the unhashed files", () => {
    template.resourceCountIs("Custom::CDKBucketDeployment", 1);
    template.hasResourceProperties("Custom::CDKBucketDeployment", {
      DestinationBucketName: { Ref: consoleBucketId() },
      DistributionId: { Ref: distributionId() },
      DistributionPaths: ["/index.html", "/console-config.json"],
      Prune: false,
    });
    expect(INVALIDATED_PATHS).toEqual(["/index.html", "/console-config.json"]);
  });

  it("writes console-config.json at deployment with the Cognito domain, the client id and the distribution's URLs", () => {
    // Prepare
    const domainId = stack.getLogicalId(stack.users.domain.node.defaultChild as CfnUserPoolDomain);

    // Act
    const [deployment] = Object.values(template.findResources("Custom::CDKBucketDeployment"));
    const markers = JSON.stringify(deployment?.Properties.SourceMarkers);

    // Assess
    expect(markers).toContain(JSON.stringify({ Ref: domainId }));
    expect(markers).toContain(
      JSON.stringify({ Ref: stack.getLogicalId(stack.users.client.node.defaultChild as CfnUserPoolClient) }),
    );
    expect(markers).toContain(JSON.stringify({ "Fn::GetAtt": [distributionId(), "DomainName"] }));
    expect(stack.resolve(stack.users.callbackUrl)).toEqual(onDistribution("/auth/callback"));
    expect(stack.resolve(stack.users.logoutUrl)).toEqual(onDistribution("/"));
  });

  it("runs its handler with a log group kept one month", () => {
    const handler = stack.consoleDeployment.deployment.handlerRole.node.scope as IConstruct;
    template.hasResourceProperties("AWS::Lambda::Function", {
      Role: { "Fn::GetAtt": [logicalIdOf(stack.consoleDeployment.deployment.handlerRole), "Arn"] },
      LoggingConfig: { LogGroup: { Ref: logicalIdOf(stack.consoleDeployment.node.findChild("Logs")) } },
    });
    expect(handler.node.id).toMatch(/^Custom::CDKBucketDeployment/);
  });
});

describe("outputs", () => {
  it("outputs the console URL (https://<distribution domain>) beside the API URL", () => {
    template.hasOutput("ConsoleUrl", { Value: onDistribution("") });
    template.hasOutput("ApiUrl", {});
  });
});

describe("console build (local bundling, no Docker)", () => {
  // One Vite build: synthesis without a prebuilt directory runs buildConsole() into the asset directory.
  it("bundles the console during synthesis when no prebuilt directory is given: web/ built with Vite into the asset directory", () => {
    // Prepare
    const app = new App();
    const probe = new Stack(app, "Probe");
    const site = new ConsoleSite(probe, "Console", {
      apiEndpoint: "https://abc123.execute-api.eu-west-1.amazonaws.com",
      signInOrigin: "https://acme.auth.eu-west-1.amazoncognito.com",
    });
    new ConsoleDeployment(probe, "Deployment", {
      site,
      auth: {
        kind: "cognito",
        domain: "https://acme.auth.eu-west-1.amazoncognito.com",
        clientId: "client",
        redirectUri: `${site.url}/auth/callback`,
        logoutUri: `${site.url}/`,
      },
    });

    // Act
    const assembly = app.synth();
    const assetDirs = readdirSync(assembly.directory)
      .filter((name) => name.startsWith("asset."))
      .map((name) => join(assembly.directory, name));

    // Assess: one asset directory is the built console (index.html + hashed assets, not the sources).
    const built = assetDirs.filter((dir) => existsSync(join(dir, "index.html")));
    expect(built).toHaveLength(1);
    const outputDir = built[0] ?? "";
    expect(existsSync(join(outputDir, "assets"))).toBe(true);
    expect(readdirSync(join(outputDir, "assets")).some((name) => name.endsWith(".js"))).toBe(true);
    expect(readFileSync(join(outputDir, "index.html"), "utf8")).not.toContain("/src/main.tsx");
    expect(existsSync(join(outputDir, "src"))).toBe(false);
  }, 120_000);
});
