/**
 * The local API (local/http-adapter.ts over every route's handler module) in
 * its own process, so the bench can load it over HTTP and read its RSS
 * without counting the load generator. Started by bench/harness/server-process.ts
 * with the DynamoDB / S3 environment already set; talks over the IPC channel:
 * `{ type: "ready", url }` once listening, `{ type: "memory", … }` on request,
 * exits on `{ type: "stop" }` or when the parent goes away.
 *
 * The per-request INFO log line is still built (its JSON.stringify is part of
 * the handler's work) but not written; WARN and ERROR lines are counted and
 * the first few forwarded to stderr.
 */
import { routes } from "../functions/routes.js";
import { startLocalApi } from "../local/http-adapter.js";
import { REPOSITORY_ROOT } from "../local/settings.js";

let problems = 0;
console.info = () => undefined;
console.debug = () => undefined;
for (const method of ["warn", "error"] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => {
    problems += 1;
    if (problems <= 5) original("[bench server]", ...args);
  };
}

const send = (message: object) => {
  if (process.send !== undefined) process.send(message);
};

const api = await startLocalApi({ routes, root: REPOSITORY_ROOT });

process.on("message", (message: { type?: string }) => {
  if (message.type === "memory") {
    const usage = process.memoryUsage();
    send({ type: "memory", rss: usage.rss, heapUsed: usage.heapUsed, problems });
  } else if (message.type === "stop") {
    void api.close().then(() => process.exit(0));
  }
});
process.on("disconnect", () => process.exit(0));

const usage = process.memoryUsage();
send({ type: "ready", url: api.url, rss: usage.rss, heapUsed: usage.heapUsed });
