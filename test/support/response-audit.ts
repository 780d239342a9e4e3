/**
 * Issue 21: the local stack's one secret is DynamoDB Local's access key id (it ignores secrets and listens
 * on every interface). Nothing a client of the API can see may carry it: this audit watches every response
 * of a test API (status line headers and body bytes, as sent on the wire) for the run's local credentials,
 * and the test file fails at its end (service-environment.ts) if any response carried one.
 */
import type { Server, ServerResponse } from "node:http";

/** One response that carried a local credential: its request and which credential. */
export const responseLeaks: string[] = [];

function scan(text: string, secrets: readonly string[], request: string): void {
  for (const secret of secrets) {
    if (secret !== "" && text.includes(secret)) responseLeaks.push(`${request} carried ${secret.slice(0, 8)}…`);
  }
}

function chunkText(chunk: unknown): string {
  if (typeof chunk === "string") return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk).toString("latin1");
  return "";
}

/** Watches every response `server` sends for `secrets` (a listener placed before the server's own). */
export function auditResponses(server: Server, secrets: readonly string[]): void {
  server.prependListener("request", (request, response: ServerResponse) => {
    const label = `${request.method} ${request.url}`;
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.write = ((...args: unknown[]) => {
      scan(chunkText(args[0]), secrets, label);
      return write(...args);
    }) as ServerResponse["write"];
    response.end = ((...args: unknown[]) => {
      scan(chunkText(args[0]), secrets, label);
      scan(JSON.stringify(response.getHeaders()), secrets, label);
      return end(...args);
    }) as ServerResponse["end"];
  });
}
