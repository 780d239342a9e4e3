/**
 * Counts the DynamoDB commands the service's document client sends (a client
 * middleware), so tests can assert which operations a route performs — e.g.
 * that no read route ever issues a Scan.
 */
import { documentClient } from "../../functions/store/dynamo-client.js";

const sent: string[] = [];
let installed = false;

export function recordDynamoCommands(): { commands: () => readonly string[]; reset: () => void } {
  if (!installed) {
    documentClient.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      { step: "initialize", name: "atsTestCommandCounter" },
    );
    installed = true;
  }
  return { commands: () => [...sent], reset: () => void sent.splice(0) };
}
