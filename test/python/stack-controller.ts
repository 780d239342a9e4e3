/**
 * The real local stack for the Python client's integration and fault tests (python/tests/integration): a
 * dedicated DynamoDB Local and `local/start.ts` on a fixed free port (so a restarted server keeps the URL the
 * client was given), driven by one command per line on stdin — `kill-api`, `start-api`, `stop-dynamo`,
 * `start-dynamo`, `close` — each answered by one JSON line on stdout. The stack is closed (both processes killed
 * by pid) on `close` and when stdin ends, so a Python test run that dies leaves nothing behind.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { freePort } from "../../local/dynamodb-local.js";
import { openProcessStack } from "../support/process-stack.js";

// The process stack remembers every key it sees in the test run's secrets ledger; outside vitest, in one of our own.
if (!process.env.ATS_TEST_SECRETS_LEDGER) {
  const ledger = join(mkdtempSync(join(tmpdir(), "ats-python-ledger-")), "secrets.txt");
  writeFileSync(ledger, "");
  process.env.ATS_TEST_SECRETS_LEDGER = ledger;
}

const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const port = await freePort();
const stack = await openProcessStack({
  prefix: "ats-python-",
  tableName: "ats-python-client",
  env: { PORT: String(port), LOG_LEVEL: "WARN" },
});
say({ ready: true, apiUrl: stack.access.apiUrl, apiKey: stack.access.apiKey });

let closing: Promise<void> | undefined;
function closeAndExit(): Promise<void> {
  closing ??= stack.close().finally(() => process.exit(0));
  return closing;
}

const commands: Record<string, () => Promise<void>> = {
  "kill-api": () => stack.killApi("SIGKILL"),
  "start-api": () => stack.startApi(),
  "stop-dynamo": () => stack.stopDynamo(),
  "start-dynamo": () => stack.startDynamo(),
};

const input = createInterface({ input: process.stdin });
let queue = Promise.resolve();
input.on("line", (line) => {
  const command = line.trim();
  queue = queue.then(async () => {
    if (command === "close") {
      say({ ok: true, command });
      await closeAndExit();
      return;
    }
    const run = commands[command];
    if (run === undefined) {
      say({ ok: false, command, error: `unknown command ${command}` });
      return;
    }
    try {
      await run();
      say({ ok: true, command, apiUrl: stack.access.apiUrl });
    } catch (error) {
      say({ ok: false, command, error: error instanceof Error ? error.message : String(error) });
    }
  });
});
input.on("close", () => void queue.then(closeAndExit));
process.once("SIGTERM", () => void closeAndExit());
