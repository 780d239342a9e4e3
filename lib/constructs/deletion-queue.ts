import { Duration } from "aws-cdk-lib";
import type { Grant, IGrantable } from "aws-cdk-lib/aws-iam";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";

/**
 * How many times a job's message is received (the worker failed or timed out
 * on it each time) before it moves to the dead-letter queue.
 */
export const MAX_RECEIVE_COUNT = 5;

/**
 * AWS recommends a queue visibility timeout of at least six times the timeout
 * of the Lambda function that consumes it, so a message is not redelivered
 * while a (retried) invocation may still be working on it.
 */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/** How long a dead-lettered job message is kept: the SQS maximum. */
const DEAD_LETTER_RETENTION = Duration.days(14);

/** Properties of {@link DeletionQueue}. */
export interface DeletionQueueProps {
  /** Timeout of the worker function; the visibility timeout is six times it. */
  readonly workerTimeout: Duration;
}

/**
 * The queue of erasure jobs (one message per job, sent by the route that
 * accepts the deletion request) and its dead-letter queue.
 *
 * Both queues are encrypted with SQS-managed keys (SSE-SQS: no KMS key to
 * grant) and refuse requests not made over TLS. A message the worker fails on
 * {@link MAX_RECEIVE_COUNT} times moves to the dead-letter queue, which keeps
 * it for 14 days; the job's state stays in the table, so an operator can
 * inspect it and redrive the message. (cdk-nag's AwsSolutions-SQS3 sees the
 * redrive policy and recognises the dead-letter queue as one: no finding.)
 */
export class DeletionQueue extends Construct {
  /** The queue the worker consumes. */
  readonly queue: Queue;
  /** Where messages go after {@link MAX_RECEIVE_COUNT} failed receives. */
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: DeletionQueueProps) {
    super(scope, id);

    this.deadLetterQueue = new Queue(this, "DeadLetterQueue", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
    });

    this.queue = new Queue(this, "Queue", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(props.workerTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
  }

  /**
   * Lets `grantee` send job messages to the queue: `sqs:SendMessage` on the
   * queue's ARN and nothing else (no KMS grant: SSE-SQS needs none).
   */
  grantSendJobs(grantee: IGrantable): Grant {
    return this.queue.grant(grantee, "sqs:SendMessage");
  }
}
