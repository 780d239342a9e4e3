/**
 * What a CloudFormation request to the `Custom::EdgeWebAcl` resource asks of
 * AWS WAF, decided from the event alone (pure): create, update in place,
 * delete, or nothing. The resource's physical id is the web ACL's ARN, which
 * carries its name and id (`arn:<partition>:wafv2:<region>:<account>:global/webacl/<name>/<id>`).
 */
import type { CloudFormationCustomResourceEvent } from "aws-lambda";
import { parseWebAclDefinition, type WebAclDefinition } from "./web-acl-definition.js";

/** A web ACL as WAF names it. */
export interface WebAclRef {
  readonly name: string;
  readonly id: string;
  readonly arn: string;
}

export type WebAclPlan =
  | { readonly kind: "create"; readonly name: string }
  | { readonly kind: "update"; readonly target: WebAclRef }
  | { readonly kind: "delete"; readonly target: WebAclRef }
  | { readonly kind: "nothing" };

/** The resource's properties, checked. */
export interface WebAclProperties {
  /** The web ACL's name (unique per account among CloudFront web ACLs). */
  readonly name: string;
  /** The region of the WAF API for CloudFront web ACLs (us-east-1). */
  readonly region: string;
  readonly definition: WebAclDefinition;
}

/** WAF's pattern for a web ACL name. */
const WEB_ACL_NAME = /^[\w-]{1,128}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;
const WEB_ACL_ARN = /^arn:[\w-]+:wafv2:[a-z0-9-]+:\d{12}:global\/webacl\/([\w-]{1,128})\/([\w-]+)$/;

/** The name and id in a CloudFront web ACL's ARN, or `undefined` for anything else. */
export function parseWebAclArn(arn: string): WebAclRef | undefined {
  const match = WEB_ACL_ARN.exec(arn);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return { name: match[1], id: match[2], arn };
}

/**
 * The properties of a Create or Update request.
 *
 * @throws Error naming the property that is missing or malformed.
 */
export function webAclProperties(properties: Readonly<Record<string, unknown>>): WebAclProperties {
  const { Name: name, Region: region, Definition: definition } = properties;
  if (typeof name !== "string" || !WEB_ACL_NAME.test(name)) {
    throw new Error(
      `The Name property must be 1–128 letters, digits, hyphens or underscores, got ${JSON.stringify(name)}`,
    );
  }
  if (typeof region !== "string" || !REGION.test(region)) {
    throw new Error(`The Region property must be an AWS region, got ${JSON.stringify(region)}`);
  }
  return { name, region, definition: parseWebAclDefinition(definition) };
}

/**
 * The plan for one request:
 * - Create: create the web ACL under its name.
 * - Update: update the web ACL in place, or create a new one when the name
 *   changed or the physical id is not a web ACL (a create that had failed);
 *   a new physical id makes CloudFormation delete the old one afterwards.
 * - Delete: delete the web ACL of the physical id; nothing when the id is not
 *   a web ACL's (the create failed before there was one).
 */
export function planWebAclRequest(event: CloudFormationCustomResourceEvent): WebAclPlan {
  if (event.RequestType === "Create") return { kind: "create", name: webAclProperties(event.ResourceProperties).name };
  const current = parseWebAclArn(event.PhysicalResourceId);
  if (event.RequestType === "Delete")
    return current === undefined ? { kind: "nothing" } : { kind: "delete", target: current };
  const { name } = webAclProperties(event.ResourceProperties);
  if (current === undefined || current.name !== name) return { kind: "create", name };
  return { kind: "update", target: current };
}
