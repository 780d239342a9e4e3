/**
 * Counts the DynamoDB commands the service's document client sends (a client
 * middleware), so tests can assert which operations a route performs — e.g.
 * that no read route ever issues a Scan — and on which partition: a GetItem
 * of a session is not a GetItem of an API key (whose per-container cache
 * lapses after KEY_CACHE_TTL_SECONDS, 1 s in tests, so a slow run re-reads
 * keys between two requests; issue 21's flaky test counted those too).
 */
import { documentClient } from "../../functions/store/table/dynamo-client.js";

interface SentCommand {
  readonly command: string;
  /** The item's partition key (`Key.PK`) of a single-item command; undefined for the others. */
  readonly partition: string | undefined;
}

const sent: SentCommand[] = [];
let installed = false;

function partitionOf(input: unknown): string | undefined {
  const key = (input as { Key?: { PK?: unknown } } | undefined)?.Key;
  return typeof key?.PK === "string" ? key.PK : undefined;
}

export function recordDynamoCommands(): {
  commands: () => readonly string[];
  /** How many times `command` was sent for an item of `partition`. */
  countOn: (command: string, partition: string) => number;
  reset: () => void;
} {
  if (!installed) {
    documentClient.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push({ command: String(context.commandName), partition: partitionOf(args.input) });
        return next(args);
      },
      { step: "initialize", name: "atsTestCommandCounter" },
    );
    installed = true;
  }
  return {
    commands: () => sent.map((entry) => entry.command),
    countOn: (command, partition) =>
      sent.filter((entry) => entry.command === command && entry.partition === partition).length,
    reset: () => void sent.splice(0),
  };
}
