import * as path from "node:path";
import { ArnFormat, Aws, CustomResource, Duration, Fn, Stack, Validations } from "aws-cdk-lib";
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Construct } from "constructs";
import { ORIGIN_VERIFY_HEADER } from "../../functions/edge/origin-verify.js";
import type { RouteDefinition } from "../../functions/routes.js";
import { ApiFunction } from "./api-function.js";
import { edgeWebAclDefinition } from "./edge-rate-rules.js";
import type { EdgeLimits } from "./edge-settings.js";

/** CloudFront web ACLs live in the WAF API of us-east-1, whatever the stack's region. */
export const CLOUDFRONT_WAF_REGION = "us-east-1";

/** How long API Gateway keeps an answer of the origin authorizer, per header value. */
export const ORIGIN_AUTHORIZER_CACHE_TTL = Duration.minutes(5);

/** The web ACL function's timeout: a delete may wait minutes for CloudFront to let go of the web ACL. */
const WEB_ACL_FUNCTION_TIMEOUT = Duration.minutes(14);

/**
 * How long CloudFormation waits for a custom resource's answer before failing
 * it (its default is an hour): past the web ACL function's timeout, so a
 * function that died without answering stalls a deployment for minutes, not an hour.
 */
const CUSTOM_RESOURCE_TIMEOUT = Duration.minutes(16);

/**
 * Why the web ACL function's role holds wildcards (AwsSolutions-IAM5);
 * exported so tests can check each acknowledgement carries it.
 */
export const WEB_ACL_WILDCARD_REASONS = {
  webAcl:
    "The web ACL's id is assigned by AWS WAF when the function creates it, so the function's create, read, update and delete permissions name the web ACL by its ARN up to that id (global/webacl/<this stack's web ACL name>/*): the name is unique to this stack (stack name and stack UUID), so no other web ACL of the account matches.",
  list: 'wafv2:ListWebACLs has no resource type in the Service Authorization Reference, so it can only be granted on "*". The function lists the account\'s CloudFront web ACLs only to find its own by name when a repeated Create finds the name taken; the call returns names, ids and ARNs, never rules.',
} as const;

/** What {@link EdgeProtection} needs from the stack. */
export interface EdgeProtectionProps {
  /** The per-address limits (requests per minute). */
  readonly limits: EdgeLimits;
  /** The route table: which rule counts a route follows from its throttle. */
  readonly routes: readonly Pick<RouteDefinition, "method" | "path" | "throttle">[];
  /** The repository root (function entries are relative to it). */
  readonly projectRoot: string;
}

/**
 * Edge protection (opt-in, `-c edgeProtection=true`): AWS WAF in front of the
 * distribution, and the HTTP API reachable only through it.
 *
 * - `Custom::EdgeWebAcl` keeps a CloudFront web ACL in us-east-1 with the
 *   per-address rate-based rules of edge-rate-rules.ts (a function calls WAF
 *   there, so the stack stays one stack in any region); the distribution
 *   names it by {@link webAclArn}.
 * - `Custom::OriginSecret` makes a random secret at deployment; CloudFront
 *   sends it to the API in the {@link originHeaderName} header.
 * - {@link authorizer} (a Lambda REQUEST authorizer whose identity source is
 *   that header) goes on every route: API Gateway refuses a request without
 *   the header itself (401), the function one with a wrong value (403).
 */
export class EdgeProtection extends Construct {
  /** The web ACL's custom resource. */
  readonly webAcl: CustomResource;
  /** The web ACL's ARN (the distribution's `WebACLId`). */
  readonly webAclArn: string;
  /** The web ACL's name: the stack's name and UUID, so stacks of one account never share one. */
  readonly webAclName: string;
  /** The function behind {@link webAcl}: WAF calls on this stack's web ACL only. */
  readonly webAclFunction: ApiFunction;
  /** The origin secret's custom resource. */
  readonly originSecret: CustomResource;
  /** The function behind {@link originSecret} (no permission beyond its log group). */
  readonly originSecretFunction: ApiFunction;
  /** The header CloudFront adds to the requests it forwards to the API. */
  readonly originHeaderName = ORIGIN_VERIFY_HEADER;
  /** The secret, as a CloudFormation reference (resolved at deployment, never in the template). */
  readonly originHeaderValue: string;
  /** The authorizer's function. */
  readonly authorizerFunction: ApiFunction;
  /** The authorizer to put on every route. */
  readonly authorizer: HttpLambdaAuthorizer;

  constructor(scope: Construct, id: string, props: EdgeProtectionProps) {
    super(scope, id);
    const stack = Stack.of(this);

    // A stack name holds at most 128 characters; the UUID and separators take 42 of WAF's 128.
    const namePrefix = `${stack.stackName.slice(0, 80)}-edge`;
    const stackUuid = Fn.select(2, Fn.split("/", Aws.STACK_ID));
    this.webAclName = Fn.join("-", [namePrefix, stackUuid]);
    this.webAclFunction = new ApiFunction(this, "WebAclSetup", {
      entry: path.join(props.projectRoot, "functions/deploy/web-acl-resource.ts"),
      projectRoot: props.projectRoot,
      description: "Keeps the AWS WAF web ACL of the distribution in us-east-1 (custom resource)",
      timeout: WEB_ACL_FUNCTION_TIMEOUT,
    });
    const role = this.webAclFunction.function.role;
    if (role === undefined) throw new Error("EdgeProtection: the web ACL function has no role");
    const webAclArns = stack.formatArn({
      service: "wafv2",
      region: CLOUDFRONT_WAF_REGION,
      resource: "global",
      resourceName: `webacl/${this.webAclName}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    this.webAclFunction.function.addToRolePolicy(
      new PolicyStatement({
        actions: ["wafv2:CreateWebACL", "wafv2:GetWebACL", "wafv2:UpdateWebACL", "wafv2:DeleteWebACL"],
        resources: [webAclArns],
      }),
    );
    this.webAclFunction.function.addToRolePolicy(
      new PolicyStatement({ actions: ["wafv2:ListWebACLs"], resources: ["*"] }),
    );
    Validations.of(role).acknowledge({
      // cdk-nag names the finding by the resource, the stack UUID's expression written out.
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:wafv2:${CLOUDFRONT_WAF_REGION}:<AWS::AccountId>:global/webacl/${namePrefix}-${JSON.stringify(stack.resolve(stackUuid))}/*]`,
      reason: WEB_ACL_WILDCARD_REASONS.webAcl,
    });
    Validations.of(role).acknowledge({ id: "AwsSolutions-IAM5[Resource::*]", reason: WEB_ACL_WILDCARD_REASONS.list });

    this.webAcl = new CustomResource(this, "WebAcl", {
      serviceToken: this.webAclFunction.function.functionArn,
      resourceType: "Custom::EdgeWebAcl",
      serviceTimeout: CUSTOM_RESOURCE_TIMEOUT,
      properties: {
        Name: this.webAclName,
        Region: CLOUDFRONT_WAF_REGION,
        Definition: JSON.stringify(edgeWebAclDefinition(props.routes, props.limits)),
      },
    });
    this.webAclArn = this.webAcl.getAttString("Arn");

    this.originSecretFunction = new ApiFunction(this, "OriginSecretSetup", {
      entry: path.join(props.projectRoot, "functions/deploy/origin-secret-resource.ts"),
      projectRoot: props.projectRoot,
      description: "Makes the secret CloudFront sends to the HTTP API (custom resource)",
    });
    this.originSecret = new CustomResource(this, "OriginSecret", {
      serviceToken: this.originSecretFunction.function.functionArn,
      resourceType: "Custom::OriginSecret",
      serviceTimeout: CUSTOM_RESOURCE_TIMEOUT,
    });
    this.originHeaderValue = this.originSecret.getAttString("Secret");

    this.authorizerFunction = new ApiFunction(this, "OriginAuthorizer", {
      entry: path.join(props.projectRoot, "functions/edge/origin-verify-authorizer.ts"),
      projectRoot: props.projectRoot,
      description: "Lets through only the API requests that came through the CloudFront distribution",
      environment: { ORIGIN_SECRET: this.originHeaderValue },
    });
    this.authorizer = new HttpLambdaAuthorizer("OriginAuthorizer", this.authorizerFunction.function, {
      authorizerName: "origin-verify",
      identitySource: [`$request.header.${ORIGIN_VERIFY_HEADER}`],
      resultsCacheTtl: ORIGIN_AUTHORIZER_CACHE_TTL,
      responseTypes: [HttpLambdaResponseType.SIMPLE],
    });
  }
}
