import { Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { AttributeType, Table } from "aws-cdk-lib/aws-dynamodb";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { describe, expect, it } from "vitest";
import { grantTableAccess } from "../../lib/constructs/api-function.js";

/** A bare stack with a table and a role: no Lambda function, so no bundling. */
function prepare() {
  const stack = new Stack();
  const table = new Table(stack, "Table", { partitionKey: { name: "PK", type: AttributeType.STRING } });
  const role = new Role(stack, "Role", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
  return { stack, table, role };
}

function tableArnOf(template: Template) {
  const [tableId] = Object.keys(template.findResources("AWS::DynamoDB::Table"));
  return { "Fn::GetAtt": [tableId, "Arn"] };
}

const LEADING_KEYS_PRESENT = { Null: { "dynamodb:LeadingKeys": "false" } };

describe("grantTableAccess", () => {
  it("grants exactly the listed actions on the table only, on the listed partitions only", () => {
    // Prepare
    const { stack, table, role } = prepare();

    // Act
    grantTableAccess(role, table, { actions: ["dynamodb:GetItem", "dynamodb:PutItem"], leadingKeys: ["SESSION#*"] });
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties("AWS::IAM::Policy", {
      PolicyDocument: {
        Statement: [
          {
            Effect: "Allow",
            Action: ["dynamodb:GetItem", "dynamodb:PutItem"],
            Resource: tableArnOf(template),
            Condition: {
              "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["SESSION#*"] },
              ...LEADING_KEYS_PRESENT,
            },
          },
        ],
      },
    });
  });

  it("names the ARN of each named index instead of the table, and no index wildcard", () => {
    // Prepare
    const { stack, table, role } = prepare();

    // Act
    grantTableAccess(role, table, {
      actions: ["dynamodb:Query"],
      leadingKeys: ["ORG#*#SESSIONS", "ORG#*#STATUS#*"],
      indexNames: ["GSI1", "GSI2", "GSI1"],
    });
    const template = Template.fromStack(stack);

    // Assess
    const tableArn = tableArnOf(template);
    template.hasResourceProperties("AWS::IAM::Policy", {
      PolicyDocument: {
        Statement: [
          {
            Effect: "Allow",
            Action: "dynamodb:Query",
            Resource: [
              { "Fn::Join": ["", [tableArn, "/index/GSI1"]] },
              { "Fn::Join": ["", [tableArn, "/index/GSI2"]] },
            ],
            Condition: {
              "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["ORG#*#SESSIONS", "ORG#*#STATUS#*"] },
              ...LEADING_KEYS_PRESENT,
            },
          },
        ],
      },
    });
  });

  it("limits the attributes a request may use, and what it may return, when attributes are listed", () => {
    // Prepare
    const { stack, table, role } = prepare();

    // Act
    grantTableAccess(role, table, {
      actions: ["dynamodb:UpdateItem"],
      leadingKeys: ["ORG#*"],
      attributes: ["PK", "SK", "lastUsedAt"],
    });
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties("AWS::IAM::Policy", {
      PolicyDocument: {
        Statement: [
          {
            Action: "dynamodb:UpdateItem",
            Condition: {
              "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["ORG#*"] },
              ...LEADING_KEYS_PRESENT,
              "ForAllValues:StringEquals": { "dynamodb:Attributes": ["PK", "SK", "lastUsedAt"] },
              StringEqualsIfExists: { "dynamodb:ReturnValues": ["NONE", "UPDATED_OLD", "UPDATED_NEW"] },
            },
          },
        ],
      },
    });
  });

  it.each([
    ["no action", []],
    ["a service wildcard", ["dynamodb:*"]],
    ["a partial wildcard", ["dynamodb:Get*"]],
    ["another service's action", ["s3:GetObject"]],
  ] as const)("refuses %s", (_label, actions) => {
    // Prepare
    const { table, role } = prepare();

    // Act
    const grant = () => grantTableAccess(role, table, { actions, leadingKeys: ["SESSION#*"] });

    // Assess
    expect(grant).toThrow(/grantTableAccess/);
  });

  it.each([
    ["no leading-key pattern", []],
    ["a pattern matching every partition", ["*"]],
    ["a pattern starting with a wildcard", ["*#SESSIONS"]],
    ["an empty pattern", [""]],
  ] as const)("refuses %s", (_label, leadingKeys) => {
    // Prepare
    const { table, role } = prepare();

    // Act
    const grant = () => grantTableAccess(role, table, { actions: ["dynamodb:GetItem"], leadingKeys });

    // Assess
    expect(grant).toThrow(/grantTableAccess: (at least one leading-key|refusing leading-key)/);
  });

  it.each([
    ["an index wildcard", "*"],
    ["a partial index wildcard", "GSI*"],
    ["an empty index name", ""],
    ["a path in an index name", "GSI1/stream"],
  ] as const)("refuses %s", (_label, indexName) => {
    // Prepare
    const { table, role } = prepare();

    // Act
    const grant = () =>
      grantTableAccess(role, table, { actions: ["dynamodb:Query"], leadingKeys: ["ORG#*"], indexNames: [indexName] });

    // Assess
    expect(grant).toThrow(/grantTableAccess: refusing index name/);
  });
});
