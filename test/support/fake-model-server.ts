/**
 * The HTTP part of the fake model servers (fake-chat-server.ts, fake-responses-server.ts): one POST route on
 * 127.0.0.1, its JSON bodies recorded in order and handed to the script that answers; anything else an
 * OpenAI-shaped 404. Never the network.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeChatServer {
  /** `http://127.0.0.1:<port>/v1`: the client's `baseURL`. */
  readonly baseURL: string;
  /** The body of every request to the route, in order. */
  readonly requests: Record<string, unknown>[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

/** An OpenAI-shaped error answer. */
export function sendError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message, type: "invalid_request_error" } }));
}

/** Starts a server answering `POST <route>` with `answer`; `baseURL` ends in `/v1`. */
export async function startFakeModelServer(
  route: string,
  answer: (body: Record<string, unknown>, res: ServerResponse) => void,
): Promise<FakeChatServer> {
  const requests: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    readBody(req)
      .then((text) => {
        if (req.method !== "POST" || req.url !== route) {
          sendError(res, 404, `No route ${req.url}`);
          return;
        }
        const body = JSON.parse(text) as Record<string, unknown>;
        requests.push(body);
        answer(body, res);
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
