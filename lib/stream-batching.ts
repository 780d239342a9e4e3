/**
 * The stream consumer's batching defaults, free of aws-cdk-lib so that the bench and the local poller can
 * read them: the event source mapping (lib/constructs/stream-counting.ts) uses them as they are.
 */

/**
 * The batching window unless the deployment sets one (`-c streamBatchingWindowSeconds=N`): counting writes each
 * distinct session and rollup item once per batch, so its cost falls with the events a batch gathers per
 * session, and its lag grows with the window (docs/performance.md: 10 s keeps counter lag p99 under 20 s).
 */
export const DEFAULT_STREAM_BATCHING_WINDOW_SECONDS = 10;

/**
 * Records per invocation with a batching window: Lambda's maximum for a DynamoDB stream, so that the window
 * (or the 6 MB invocation payload), not the count, closes a batch.
 */
export const WINDOWED_STREAM_BATCH_SIZE = 10_000;
