/**
 * The stack deployed with edge protection (`-c edgeProtection=true`): an AWS
 * WAF web ACL with per-address rate limits in front of the distribution, and
 * the HTTP API answering only what came through it. The default deployment
 * (no edge protection) is checked in service-stack.test.ts.
 *
 * The stack is synthesized without bundling the functions (the CDK's
 * `aws:cdk:bundling-stacks` context): this file checks the template; the
 * edge functions' own bundles are built once, in a small stack, at the end.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { App, type CfnElement, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { CfnAuthorizer } from "aws-cdk-lib/aws-apigatewayv2";
import { CfnDistribution } from "aws-cdk-lib/aws-cloudfront";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { ORIGIN_VERIFY_HEADER } from "../../functions/edge/origin-verify.js";
import { routes } from "../../functions/routes.js";
import {
  CLOUDFRONT_WAF_REGION,
  EdgeProtection,
  ORIGIN_AUTHORIZER_CACHE_TTL,
  WEB_ACL_WILDCARD_REASONS,
} from "../../lib/constructs/edge-protection.js";
import { edgeWebAclDefinition } from "../../lib/constructs/edge-rate-rules.js";
import { DEFAULT_EDGE_LIMITS, EDGE_LIMIT_CONTEXT_KEYS } from "../../lib/constructs/edge-settings.js";
import { AgentTrackingStack, CONSOLE_ASSET_CONTEXT_KEY } from "../../lib/service-stack.js";
import { acknowledgementsIn, awsSolutionsFindings } from "./nag-findings.js";

const CONSOLE_FIXTURE = fileURLToPath(new URL("./fixtures/console", import.meta.url));
const REPOSITORY_ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The Lambda bundle budget (the bench reports every function's; these three are checked here). */
const MAX_BUNDLE_BYTES = 300 * 1024;
const SYNTH_TIMEOUT_MS = 180_000;

/** A limit set in the context, to see it reach the web ACL. */
const MANAGEMENT_LIMIT = 30;

interface PolicyStatementJson {
  readonly Effect: string;
  readonly Action: string | readonly string[];
  readonly Resource: unknown;
}

let stack: AgentTrackingStack;
let edge: EdgeProtection;
let template: Template;

function logicalIdOf(construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

function functionIdOf(fn: { readonly function: IConstruct }): string {
  return logicalIdOf(fn.function);
}

/** Every statement of the policies attached to a function's role. */
function statementsOf(fn: { readonly function: { readonly role?: IConstruct | undefined } }): PolicyStatementJson[] {
  const role = fn.function.role;
  if (role === undefined) throw new Error("function without a role");
  const roleId = logicalIdOf(role);
  return Object.values(template.findResources("AWS::IAM::Policy"))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatementJson[]);
}

function actionsOf(statements: readonly PolicyStatementJson[]): string[] {
  return statements
    .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]))
    .sort();
}

function distributionConfig() {
  const cfn = stack.consoleSite.distribution.node.defaultChild;
  if (!(cfn instanceof CfnDistribution)) throw new Error("no CfnDistribution");
  const resource = template.findResources("AWS::CloudFront::Distribution")[stack.getLogicalId(cfn)];
  return resource as {
    Properties: {
      DistributionConfig: {
        WebACLId?: unknown;
        IPV6Enabled?: boolean;
        CacheBehaviors: readonly { PathPattern: string; TargetOriginId: string }[];
        DefaultCacheBehavior: { TargetOriginId: string };
        Origins: readonly { Id: string; OriginCustomHeaders?: unknown }[];
      };
    };
    DependsOn?: readonly string[];
  };
}

const secretReference = () => ({ "Fn::GetAtt": [logicalIdOf(edge.originSecret), "Secret"] });

beforeAll(() => {
  // Prepare: the feature flags of cdk.json, the console fixture, no bundling; edge protection on.
  const cdkJson = JSON.parse(readFileSync(new URL("../../cdk.json", import.meta.url), "utf8")) as {
    context: Record<string, unknown>;
  };
  const app = new App({
    context: {
      ...cdkJson.context,
      [CONSOLE_ASSET_CONTEXT_KEY]: CONSOLE_FIXTURE,
      "aws:cdk:bundling-stacks": [],
      edgeProtection: "true",
      [EDGE_LIMIT_CONTEXT_KEYS.management]: String(MANAGEMENT_LIMIT),
    },
  });

  // Act
  stack = new AgentTrackingStack(app, "AgentTrackingEdgeTest");
  template = Template.fromStack(stack);
  if (stack.edge === undefined) throw new Error("edge protection is off");
  edge = stack.edge;
}, SYNTH_TIMEOUT_MS);

describe("the web ACL", () => {
  it("is kept in us-east-1 by a custom resource, named after the stack and its UUID", () => {
    template.resourceCountIs("Custom::EdgeWebAcl", 1);
    template.hasResourceProperties("Custom::EdgeWebAcl", {
      ServiceToken: { "Fn::GetAtt": [functionIdOf(edge.webAclFunction), "Arn"] },
      Region: CLOUDFRONT_WAF_REGION,
      Name: {
        "Fn::Join": [
          "-",
          ["AgentTrackingEdgeTest-edge", { "Fn::Select": [2, { "Fn::Split": ["/", { Ref: "AWS::StackId" }] }] }],
        ],
      },
    });
  });

  it("holds the per-address rate-based rules built from the route table, at the limits the settings give", () => {
    // Act
    const [resource] = Object.values(template.findResources("Custom::EdgeWebAcl"));
    const definition = JSON.parse(resource?.Properties.Definition as string);

    // Assess
    expect(definition).toEqual(edgeWebAclDefinition(routes, { ...DEFAULT_EDGE_LIMITS, management: MANAGEMENT_LIMIT }));
    expect(
      definition.Rules.map((rule: { Name: string; Statement: { RateBasedStatement: { Limit: number } } }) => [
        rule.Name,
        rule.Statement.RateBasedStatement.Limit,
      ]),
    ).toEqual([
      ["ManagementPerIp", MANAGEMENT_LIMIT],
      ["ReadsPerIp", DEFAULT_EDGE_LIMITS.read],
      ["AllRequestsPerIp", DEFAULT_EDGE_LIMITS.all],
    ]);
  });

  it("fronts the distribution", () => {
    expect(distributionConfig().Properties.DistributionConfig.WebACLId).toEqual({
      "Fn::GetAtt": [logicalIdOf(edge.webAcl), "Arn"],
    });
  });

  it("has its function allowed WAF calls on this stack's web ACL only, and the listing that has no resource type", () => {
    const statements = statementsOf(edge.webAclFunction).filter((statement) =>
      actionsOf([statement]).some((action) => action.startsWith("wafv2:")),
    );

    const [webAcl] = Object.values(template.findResources("Custom::EdgeWebAcl"));

    expect(statements).toEqual([
      {
        Effect: "Allow",
        Action: ["wafv2:CreateWebACL", "wafv2:DeleteWebACL", "wafv2:GetWebACL", "wafv2:UpdateWebACL"],
        // The web ACL of the name the custom resource gives it, whatever id WAF assigns.
        Resource: {
          "Fn::Join": [
            "",
            [
              "arn:",
              { Ref: "AWS::Partition" },
              `:wafv2:${CLOUDFRONT_WAF_REGION}:`,
              { Ref: "AWS::AccountId" },
              ":global/webacl/",
              webAcl?.Properties.Name,
              "/*",
            ],
          ],
        },
      },
      { Effect: "Allow", Action: "wafv2:ListWebACLs", Resource: "*" },
    ]);
    expect(actionsOf(statementsOf(edge.webAclFunction)).filter((action) => !action.startsWith("wafv2:"))).toEqual([
      "logs:CreateLogStream",
      "logs:PutLogEvents",
    ]);
  });

  it("waits for CloudFront to let go of the web ACL within its function's timeout, and fails the deployment soon after", () => {
    template.hasResourceProperties("AWS::Lambda::Function", {
      Description: Match.stringLikeRegexp("AWS WAF web ACL"),
      Timeout: 840,
    });
    template.hasResourceProperties("Custom::EdgeWebAcl", { ServiceTimeout: "960" });
  });
});

describe("the API, reachable only through the distribution", () => {
  it("gets the origin secret from CloudFront on every /api/* request, and nothing more on the console's files", () => {
    // Prepare
    const config = distributionConfig().Properties.DistributionConfig;
    const apiOriginId = config.CacheBehaviors.find((behavior) => behavior.PathPattern === "/api/*")?.TargetOriginId;

    // Act
    const apiOrigin = config.Origins.find((origin) => origin.Id === apiOriginId);
    const consoleOrigin = config.Origins.find((origin) => origin.Id === config.DefaultCacheBehavior.TargetOriginId);

    // Assess
    expect(apiOrigin?.OriginCustomHeaders).toEqual([
      { HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: secretReference() },
    ]);
    expect(consoleOrigin).not.toHaveProperty("OriginCustomHeaders");
  });

  it("makes the secret at deployment: no value in the template, a custom resource with nothing to change", () => {
    template.resourceCountIs("Custom::OriginSecret", 1);
    template.hasResource("Custom::OriginSecret", {
      Properties: {
        ServiceToken: { "Fn::GetAtt": [functionIdOf(edge.originSecretFunction), "Arn"] },
        ServiceTimeout: "960",
      },
    });
    const [secretResource] = Object.values(template.findResources("Custom::OriginSecret"));
    expect(Object.keys(secretResource?.Properties ?? {}).sort()).toEqual(["ServiceTimeout", "ServiceToken"]);
    // A 43-character base64url literal in the template, other than a logical id, would be a secret committed with it.
    const logicalIds = new Set(Object.keys(template.toJSON().Resources));
    const literals = [...JSON.stringify(template.toJSON()).matchAll(/"([A-Za-z0-9_-]{43})"/g)].map((match) => match[1]);
    expect(literals.filter((literal) => !logicalIds.has(literal ?? ""))).toEqual([]);
  });

  it("puts one Lambda authorizer on the header CloudFront adds, simple responses cached 5 minutes", () => {
    template.resourceCountIs("AWS::ApiGatewayV2::Authorizer", 1);
    template.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", {
      ApiId: { Ref: logicalIdOf(stack.api) },
      AuthorizerType: "REQUEST",
      IdentitySource: [`$request.header.${ORIGIN_VERIFY_HEADER}`],
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: "2.0",
      AuthorizerResultTtlInSeconds: ORIGIN_AUTHORIZER_CACHE_TTL.toSeconds(),
      AuthorizerUri: Match.objectLike({
        "Fn::Join": ["", Match.arrayWith([{ "Fn::GetAtt": [functionIdOf(edge.authorizerFunction), "Arn"] }])],
      }),
    });
  });

  it("gives the authorizer the secret, and nothing else: no table, no permission beyond its log group", () => {
    template.hasResourceProperties("AWS::Lambda::Function", {
      Description: Match.stringLikeRegexp("came through the CloudFront distribution"),
      Environment: { Variables: { ORIGIN_SECRET: secretReference() } },
    });
    expect(actionsOf(statementsOf(edge.authorizerFunction))).toEqual(["logs:CreateLogStream", "logs:PutLogEvents"]);
    expect(actionsOf(statementsOf(edge.originSecretFunction))).toEqual(["logs:CreateLogStream", "logs:PutLogEvents"]);
  });

  it("lets API Gateway alone invoke the authorizer", () => {
    template.hasResourceProperties("AWS::Lambda::Permission", {
      Action: "lambda:InvokeFunction",
      FunctionName: { "Fn::GetAtt": [functionIdOf(edge.authorizerFunction), "Arn"] },
      Principal: "apigateway.amazonaws.com",
    });
  });

  it("authorizes every route of the route table with it", () => {
    // Prepare
    const authorizer = stack.node.findAll().find((construct) => construct instanceof CfnAuthorizer);
    if (authorizer === undefined) throw new Error("no authorizer");

    // Act
    const apiRoutes = Object.values(template.findResources("AWS::ApiGatewayV2::Route"));

    // Assess
    expect(apiRoutes).toHaveLength(routes.length);
    for (const route of apiRoutes) {
      expect({
        route: route.Properties.RouteKey,
        type: route.Properties.AuthorizationType,
        id: route.Properties.AuthorizerId,
      }).toEqual({
        route: route.Properties.RouteKey,
        type: "CUSTOM",
        id: { Ref: stack.getLogicalId(authorizer as CfnAuthorizer) },
      });
    }
  });

  it("requires the origin header on a route only once the distribution sends it (turning edge protection on refuses no one)", () => {
    const distributionId = logicalIdOf(stack.consoleSite.distribution);
    for (const [id, route] of Object.entries(template.findResources("AWS::ApiGatewayV2::Route"))) {
      expect({ id, dependsOnDistribution: (route.DependsOn ?? []).includes(distributionId) }).toEqual({
        id,
        dependsOnDistribution: true,
      });
    }
  });

  it("updates the authorizer before the distribution, so a new secret is never refused (and the refusal cached)", () => {
    expect(distributionConfig().DependsOn).toContain(functionIdOf(edge.authorizerFunction));
  });

  it("outputs the distribution's URL as the API URL, without a trailing slash so `<ApiUrl>/api/…` stays under /api/*", () => {
    const distributionUrl = {
      "Fn::Join": ["", ["https://", { "Fn::GetAtt": [logicalIdOf(stack.consoleSite.distribution), "DomainName"] }]],
    };
    template.hasOutput("ApiUrl", { Value: distributionUrl });
    template.hasOutput("ConsoleUrl", { Value: distributionUrl });
  });

  it("serves the distribution over IPv4 only: per-address limits mean little when one host holds a whole IPv6 /64", () => {
    expect(distributionConfig().Properties.DistributionConfig.IPV6Enabled).toBe(false);
  });

  it("watches the authorizer with the other functions (its errors fail every API request)", () => {
    const authorizerId = functionIdOf(edge.authorizerFunction);
    const alarms = JSON.stringify(template.findResources("AWS::CloudWatch::Alarm"));
    expect(alarms).toContain(`{"Ref":"${authorizerId}"}`);
  });
});

describe("AwsSolutions checks (cdk-nag) with edge protection", () => {
  it("leave no unacknowledged error or warning", () => {
    expect(awsSolutionsFindings(stack)).toEqual({ errors: [], warnings: [] });
  });

  it("need no acknowledgement of CFR2 (a distribution without a web ACL) nor of APIG4 (a route without an authorizer)", () => {
    const ids = acknowledgementsIn(stack).map((ack) => ack.id);
    expect(ids).not.toContain("AwsSolutions-CFR2");
    expect(ids).not.toContain("AwsSolutions-APIG4");
  });

  it("acknowledge the web ACL function's two wildcards, with their reasons, and no other edge finding", () => {
    const edgeAcknowledgements = acknowledgementsIn(edge).map(({ path, id, reason }) => ({ path, id, reason }));
    const rolePath = edge.webAclFunction.function.role?.node.path;

    expect(edgeAcknowledgements).toEqual([
      {
        path: rolePath,
        id: expect.stringMatching(
          /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:wafv2:us-east-1:<AWS::AccountId>:global\/webacl\/AgentTrackingEdgeTest-edge-/,
        ),
        reason: WEB_ACL_WILDCARD_REASONS.webAcl,
      },
      { path: rolePath, id: "AwsSolutions-IAM5[Resource::*]", reason: WEB_ACL_WILDCARD_REASONS.list },
    ]);
  });
});

describe("the edge functions' bundles", () => {
  it(
    "stay within the 300 KiB budget, the WAF client left to the runtime",
    () => {
      // Prepare: edge protection alone, bundled as `cdk synth` bundles it.
      const app = new App();
      const bare = new Stack(app, "EdgeBundles");
      const bundled = new EdgeProtection(bare, "Edge", {
        limits: DEFAULT_EDGE_LIMITS,
        routes,
        projectRoot: REPOSITORY_ROOT,
      });

      // Act
      const directory = app.synth().directory;
      const bareTemplate = Template.fromStack(bare);
      const codeOf = (fn: { readonly function: IConstruct }) => {
        const id = bare.getLogicalId(fn.function.node.defaultChild as CfnFunction);
        const key = bareTemplate.toJSON().Resources[id].Properties.Code.S3Key as string;
        return readFileSync(join(directory, `asset.${key.replace(/\.zip$/, "")}`, "index.mjs"), "utf8");
      };
      const bundles = {
        webAcl: codeOf(bundled.webAclFunction),
        originSecret: codeOf(bundled.originSecretFunction),
        authorizer: codeOf(bundled.authorizerFunction),
      };

      // Assess
      for (const [name, code] of Object.entries(bundles)) {
        expect({ name, withinBudget: Buffer.byteLength(code) <= MAX_BUNDLE_BYTES }).toEqual({
          name,
          withinBudget: true,
        });
      }
      expect(bundles.webAcl).toMatch(/from\s*"@aws-sdk\/client-wafv2"/);
      // The client's own code (its JSON protocol's target prefix) is not in the bundle.
      expect(bundles.webAcl).not.toContain("AWSWAF_20190729");
      expect(bundles.authorizer).toContain(ORIGIN_VERIFY_HEADER);
    },
    SYNTH_TIMEOUT_MS,
  );
});
