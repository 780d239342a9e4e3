import { Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { AttributeType, Table } from "aws-cdk-lib/aws-dynamodb";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { describe, expect, it } from "vitest";
import { grantTableActions } from "../../lib/constructs/api-function.js";

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

describe("grantTableActions", () => {
  it("grants exactly the listed actions on the table only", () => {
    // Prepare
    const { stack, table, role } = prepare();

    // Act
    grantTableActions(role, table, ["dynamodb:GetItem", "dynamodb:PutItem"], { indexNames: [] });
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties("AWS::IAM::Policy", {
      PolicyDocument: {
        Statement: [
          { Effect: "Allow", Action: ["dynamodb:GetItem", "dynamodb:PutItem"], Resource: tableArnOf(template) },
        ],
      },
    });
  });

  it("adds the ARN of each named index, and no index wildcard", () => {
    // Prepare
    const { stack, table, role } = prepare();

    // Act
    grantTableActions(role, table, ["dynamodb:Query"], { indexNames: ["GSI1", "GSI2", "GSI1"] });
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
              tableArn,
              { "Fn::Join": ["", [tableArn, "/index/GSI1"]] },
              { "Fn::Join": ["", [tableArn, "/index/GSI2"]] },
            ],
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
    const grant = () => grantTableActions(role, table, actions, { indexNames: [] });

    // Assess
    expect(grant).toThrow(/grantTableActions/);
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
    const grant = () => grantTableActions(role, table, ["dynamodb:Query"], { indexNames: [indexName] });

    // Assess
    expect(grant).toThrow(/grantTableActions: refusing index name/);
  });
});
