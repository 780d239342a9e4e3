import { Duration } from "aws-cdk-lib";
import type { Grant, IGrantable } from "aws-cdk-lib/aws-iam";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";

/**
 * Receives of one delivery message before it is dead-lettered: the worker handles a failed delivery itself (the next
 * attempt is a new message, the last goes to the dead-letter queue), so a message fails only when the worker does.
 */
export const ALERT_DELIVERY_MAX_RECEIVE_COUNT = 3;

/** A delivery waits at most 10 s for its receiver; a batch of ten runs side by side. */
export const ALERT_DELIVERY_WORKER_TIMEOUT = Duration.seconds(30);

/**
 * The queue of alert deliveries (one message per notification and destination, delayed for a retry) and its
 * dead-letter queue, which receives the deliveries given up after their last attempt and messages the worker failed
 * on {@link ALERT_DELIVERY_MAX_RECEIVE_COUNT} times; it keeps them 14 days. Both encrypted with SQS-managed keys and
 * TLS-only, like the deletion queue (deletion-queue.ts).
 */
export class AlertDeliveryQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, "DeadLetterQueue", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, "Queue", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the worker's timeout (AWS's advice for a Lambda consumer).
      visibilityTimeout: Duration.seconds(ALERT_DELIVERY_WORKER_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: ALERT_DELIVERY_MAX_RECEIVE_COUNT },
    });
  }

  /** The environment of a function that hands deliveries over (functions/alerts/delivery/delivery-queue.ts). */
  senderEnvironment(): Record<string, string> {
    return { ALERT_DELIVERY_QUEUE_URL: this.queue.queueUrl };
  }

  /** Lets `grantee` queue deliveries: `sqs:SendMessage` on the queue and nothing else. */
  grantSendDeliveries(grantee: IGrantable): Grant {
    return this.queue.grant(grantee, "sqs:SendMessage");
  }

  /** Lets `grantee` dead-letter a delivery given up after its last attempt. */
  grantDeadLetter(grantee: IGrantable): Grant {
    return this.deadLetterQueue.grant(grantee, "sqs:SendMessage");
  }
}
