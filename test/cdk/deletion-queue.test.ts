import { App, Duration, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { CfnQueue } from "aws-cdk-lib/aws-sqs";
import { beforeAll, describe, expect, it } from "vitest";
import { DeletionQueue } from "../../lib/constructs/deletion-queue.js";

/** A bare stack with the queue pair and one sender role: no Lambda function, so no bundling. */
let stack: Stack;
let queues: DeletionQueue;
let template: Template;

function queueArnOf(queue: DeletionQueue["queue"]) {
  const child = queue.node.defaultChild;
  if (!(child instanceof CfnQueue)) throw new Error(`${queue.node.path} has no CfnQueue`);
  return { "Fn::GetAtt": [stack.getLogicalId(child), "Arn"] };
}

beforeAll(() => {
  // Prepare: a worker timeout other than the stack's, so the factor is what is tested.
  stack = new Stack(new App(), "Queues");
  const sender = new Role(stack, "Sender", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });

  // Act: the one synthesis of this file.
  queues = new DeletionQueue(stack, "Deletion", { workerTimeout: Duration.seconds(70) });
  queues.grantSendJobs(sender);
  template = Template.fromStack(stack);
});

describe("DeletionQueue", () => {
  it("sets the visibility timeout to six times the worker's timeout", () => {
    template.hasResourceProperties("AWS::SQS::Queue", {
      VisibilityTimeout: 420,
      RedrivePolicy: { deadLetterTargetArn: queueArnOf(queues.deadLetterQueue), maxReceiveCount: 5 },
    });
  });

  it("grants a sender sqs:SendMessage on the deletion queue and nothing else", () => {
    // Act
    const policies = Object.values(
      template.findResources("AWS::IAM::Policy") as Record<
        string,
        { Properties: { PolicyDocument: { Statement: unknown } } }
      >,
    );

    // Assess
    expect(policies.map((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
      [{ Effect: "Allow", Action: "sqs:SendMessage", Resource: queueArnOf(queues.queue) }],
    ]);
  });
});
