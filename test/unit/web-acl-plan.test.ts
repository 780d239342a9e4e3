/**
 * The `Custom::EdgeWebAcl` resource's pure parts: what each CloudFormation
 * request asks of WAF (functions/deploy/web-acl-plan.ts), and the definition
 * the stack passes as JSON text (functions/deploy/web-acl-definition.ts).
 */
import type { CloudFormationCustomResourceEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { parseWebAclDefinition, toWebAclInput } from "../../functions/deploy/web-acl-definition.js";
import { parseWebAclArn, planWebAclRequest, webAclProperties } from "../../functions/deploy/web-acl-plan.js";
import { routes } from "../../functions/routes.js";
import { edgeWebAclDefinition } from "../../lib/constructs/edge-rate-rules.js";
import { DEFAULT_EDGE_LIMITS } from "../../lib/constructs/edge-settings.js";

const ARN =
  "arn:aws:wafv2:us-east-1:123456789012:global/webacl/AgentTracking-edge-0a1b/9f8e7d6c-aaaa-bbbb-cccc-0123456789ab";
const DEFINITION = JSON.stringify(edgeWebAclDefinition(routes, DEFAULT_EDGE_LIMITS));

function properties(overrides: Record<string, unknown> = {}) {
  return {
    ServiceToken: "arn:aws:lambda:eu-west-1:123456789012:function:x",
    Name: "AgentTracking-edge-0a1b",
    Region: "us-east-1",
    Definition: DEFINITION,
    ...overrides,
  };
}

function event(
  requestType: "Create" | "Update" | "Delete",
  props: Record<string, unknown> = properties(),
  physicalResourceId = ARN,
): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: "arn:aws:lambda:eu-west-1:123456789012:function:x",
    ResponseURL: "http://127.0.0.1:9/response",
    StackId: "arn:aws:cloudformation:eu-west-1:123456789012:stack/AgentTracking/0a1b",
    RequestId: "request-1",
    LogicalResourceId: "EdgeWebAcl",
    ResourceType: "Custom::EdgeWebAcl",
    ResourceProperties: props as { ServiceToken: string },
  };
  if (requestType === "Create") return { ...common, RequestType: "Create" };
  if (requestType === "Delete") return { ...common, RequestType: "Delete", PhysicalResourceId: physicalResourceId };
  return {
    ...common,
    RequestType: "Update",
    PhysicalResourceId: physicalResourceId,
    OldResourceProperties: properties(),
  };
}

describe("parseWebAclArn", () => {
  it("reads the name and id of a CloudFront web ACL's ARN", () => {
    expect(parseWebAclArn(ARN)).toEqual({
      name: "AgentTracking-edge-0a1b",
      id: "9f8e7d6c-aaaa-bbbb-cccc-0123456789ab",
      arn: ARN,
    });
  });

  it.each([
    "web-acl-not-created",
    "arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/name/id",
    "arn:aws:wafv2:us-east-1:123456789012:global/ipset/name/id",
    "",
  ])("is undefined for %j", (id) => {
    expect(parseWebAclArn(id)).toBeUndefined();
  });
});

describe("planWebAclRequest", () => {
  it("creates on Create", () => {
    expect(planWebAclRequest(event("Create"))).toEqual({ kind: "create", name: "AgentTracking-edge-0a1b" });
  });

  it("updates in place on Update of the same name", () => {
    expect(planWebAclRequest(event("Update"))).toEqual({ kind: "update", target: parseWebAclArn(ARN) });
  });

  it("creates a new web ACL on Update to another name (CloudFormation deletes the old one after)", () => {
    expect(planWebAclRequest(event("Update", properties({ Name: "Renamed-edge" })))).toEqual({
      kind: "create",
      name: "Renamed-edge",
    });
  });

  it("creates on Update of a resource whose create had failed", () => {
    expect(planWebAclRequest(event("Update", properties(), "web-acl-not-created"))).toEqual({
      kind: "create",
      name: "AgentTracking-edge-0a1b",
    });
  });

  it("deletes the web ACL of the physical id on Delete, whatever the properties hold", () => {
    expect(planWebAclRequest(event("Delete", { ServiceToken: "x" }))).toEqual({
      kind: "delete",
      target: parseWebAclArn(ARN),
    });
  });

  it("does nothing on Delete of a resource whose create had failed", () => {
    expect(planWebAclRequest(event("Delete", properties(), "web-acl-not-created"))).toEqual({ kind: "nothing" });
  });

  it.each([
    [{ Name: "" }, /Name property/],
    [{ Name: "has space" }, /Name property/],
    [{ Name: "x".repeat(129) }, /Name property/],
    [{ Region: "mars" }, /Region property/],
    [{ Definition: undefined }, /Definition property must be/],
    [{ Definition: "{not json" }, /not JSON/],
    [{ Definition: "[]" }, /has no Description/],
    [
      {
        Definition: JSON.stringify({
          Description: "",
          DefaultAction: {},
          Rules: {},
          VisibilityConfig: {},
          CustomResponseBodies: {},
        }),
      },
      /Rules is not a list/,
    ],
  ])("refuses properties %j on Create, naming what is wrong", (override, message) => {
    expect(() => planWebAclRequest(event("Create", properties(override)))).toThrow(message);
  });
});

describe("webAclProperties and toWebAclInput", () => {
  it("gives WAF the stack's definition, search strings as UTF-8 bytes", () => {
    // Prepare
    const { definition } = webAclProperties(properties());

    // Act
    const input = toWebAclInput(definition);

    // Assess
    expect(input.Rules.map((rule) => rule.Name)).toEqual(["ManagementPerIp", "ReadsPerIp", "AllRequestsPerIp"]);
    const statements = input.Rules[0]?.Statement?.RateBasedStatement?.ScopeDownStatement?.OrStatement?.Statements ?? [];
    // A family matched by its path alone (any method), and a route matched by its method and path.
    const familyMatch = statements[0]?.ByteMatchStatement;
    const routeMatch = statements.find((statement) => statement.AndStatement !== undefined)?.AndStatement
      ?.Statements?.[1]?.ByteMatchStatement;
    expect(familyMatch?.SearchString).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(familyMatch?.SearchString)).toBe("/api/openapi.json");
    expect(routeMatch?.SearchString).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(routeMatch?.SearchString)).toBe("/api/sdk/sessions/");
    for (const match of [familyMatch, routeMatch]) {
      expect(match?.TextTransformations).toEqual([
        { Priority: 0, Type: "URL_DECODE" },
        { Priority: 1, Type: "NORMALIZE_PATH" },
      ]);
    }
    expect(input.Rules[2]?.Statement?.RateBasedStatement).toEqual({
      Limit: 7200,
      EvaluationWindowSec: 60,
      AggregateKeyType: "IP",
    });
    expect(input.DefaultAction).toEqual({ Allow: {} });
    expect(Object.keys(input.CustomResponseBodies)).toEqual(["too-many-requests"]);
  });

  it("round-trips the definition through its JSON text unchanged", () => {
    expect(parseWebAclDefinition(DEFINITION)).toEqual(JSON.parse(DEFINITION));
  });
});
