/**
 * A thin local stand-in for API Gateway (HTTP API, payload format 2.0): it
 * matches a request against the route table, builds the same event API
 * Gateway would, and invokes the very handler module Lambda runs.
 */
import { isUtf8 } from "node:buffer";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { functionEntryOf } from "../functions/route-table.js";
import type { RouteDefinition } from "../functions/routes.js";
import { CONSOLE_SECURITY_HEADERS, isConsolePath, serveConsoleFile } from "./static-console.js";

/** The handler signature every route module exports. */
export type LambdaHttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** API Gateway HTTP APIs refuse payloads above 10 MB before any Lambda runs. */
const GATEWAY_PAYLOAD_LIMIT = 10 * 1024 * 1024;
/**
 * Lambda's synchronous invocation payload limit (request and response, each): 6 MB, counted on the
 * event and the result as JSON. The request side includes what API Gateway adds: the body as a JSON
 * string (escapes: `"` and `\` take two bytes) or base64 (4/3) for a binary one such as gzip.
 */
const LAMBDA_PAYLOAD_LIMIT = 6 * 1024 * 1024;

/** Size of a Lambda payload as sent over the wire (its JSON, UTF-8). */
function payloadBytes(payload: unknown): number {
  return Buffer.byteLength(JSON.stringify(payload), "utf8");
}
const FUNCTION_TIMEOUT_MS = 10_000;

interface CompiledRoute {
  readonly route: RouteDefinition;
  readonly pattern: RegExp;
  readonly parameterNames: readonly string[];
  readonly handler: LambdaHttpHandler;
}

function compile(route: RouteDefinition, handler: LambdaHttpHandler): CompiledRoute {
  const parameterNames: string[] = [];
  const source = route.path
    .split("/")
    .map((segment) => {
      const parameter = /^\{(\w+)\}$/.exec(segment);
      if (!parameter?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      parameterNames.push(parameter[1]);
      return "([^/]+)";
    })
    .join("/");
  return { route, pattern: new RegExp(`^${source}$`), parameterNames, handler };
}

/**
 * Imports the module each route's Lambda function runs, as Lambda would at cold start: the route's handler, or its
 * function group's dispatcher (which picks the handler by route key, as on AWS).
 */
export async function loadRoutes(routes: readonly RouteDefinition[], root: string): Promise<CompiledRoute[]> {
  return Promise.all(
    routes.map(async (route) => {
      const module = (await import(pathToFileURL(resolve(root, functionEntryOf(route))).href)) as {
        handler: LambdaHttpHandler;
      };
      return compile(route, module.handler);
    }),
  );
}

function readBody(request: IncomingMessage): Promise<Buffer | "too large"> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > GATEWAY_PAYLOAD_LIMIT) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on("end", () => resolvePromise(tooLarge ? "too large" : Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(",") : value;
  }
  return headers;
}

function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function lambdaContext(functionName: string, requestId: string): Context {
  const deadline = Date.now() + FUNCTION_TIMEOUT_MS;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: "1024",
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Builds the HTTP API payload v2 event for a matched request. */
export function buildEvent(
  request: IncomingMessage,
  url: URL,
  match: { route: RouteDefinition; pathParameters: Record<string, string> },
  body: Buffer,
  requestId: string,
): APIGatewayProxyEventV2 {
  const headers = headersOf(request);
  const routeKey = `${match.route.method} ${match.route.path}`;
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const textual = isUtf8(body);
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: "2.0",
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      domainName: headers.host ?? "127.0.0.1",
      domainPrefix: "local",
      http: {
        method: request.method ?? "GET",
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? "127.0.0.1",
        userAgent: headers["user-agent"] ?? "",
      },
      requestId,
      routeKey,
      stage: "$default",
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: !textual,
  };
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (Object.keys(match.pathParameters).length > 0) event.pathParameters = match.pathParameters;
  if (body.length > 0) event.body = textual ? body.toString("utf8") : body.toString("base64");
  return event;
}

function sendJson(response: ServerResponse, statusCode: number, body: unknown): void {
  response.writeHead(statusCode, { "content-type": "application/json; charset=utf-8" });
  response.end(JSON.stringify(body));
}

function sendResult(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body = result.body === undefined ? "" : result.body;
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(result.isBase64Encoded ? Buffer.from(body, "base64") : body);
}

export interface LocalApi {
  readonly server: Server;
  readonly url: string;
  close(): Promise<void>;
}

/** A request to an endpoint of the local stack that is not in the route table. */
export interface LocalEndpointRequest {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** This server's own URL (`http://127.0.0.1:<port>`): the local issuer. */
  readonly apiUrl: string;
}

export interface LocalEndpointReply {
  readonly statusCode: number;
  /** Sent as JSON. */
  readonly body: unknown;
}

/** An endpoint only the local stack serves (the console's sign-in), outside the route table. */
export interface LocalEndpoint {
  readonly method: "GET" | "POST";
  readonly path: string;
  handle(request: LocalEndpointRequest): LocalEndpointReply | Promise<LocalEndpointReply>;
}

/** The path part of a request target as sent, before any normalisation of `..` segments. */
function rawPathOf(request: IncomingMessage): string {
  const target = request.url ?? "/";
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

export async function startLocalApi(options: {
  readonly routes: readonly RouteDefinition[];
  readonly root: string;
  readonly port?: number;
  /** Documents served as JSON on GET outside the route table (the local issuer's JWKS). */
  readonly documents?: Readonly<Record<string, () => unknown>>;
  /** Endpoints outside the route table: the console's configuration and local sign-in. */
  readonly localEndpoints?: readonly LocalEndpoint[];
  /** The built console (`web/dist`), served at `/` for every path outside `/api/` and `/local/`. */
  readonly consoleDirectory?: string;
}): Promise<LocalApi> {
  const compiled = await loadRoutes(options.routes, options.root);
  let serverUrl = "";

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://local");
    const method = request.method ?? "GET";
    const document = options.documents?.[url.pathname];
    if (document !== undefined && method === "GET") {
      sendJson(response, 200, document());
      return;
    }
    const endpoints = options.localEndpoints?.filter((endpoint) => endpoint.path === url.pathname) ?? [];
    if (endpoints.length > 0) {
      const body = await readBody(request);
      const endpoint = endpoints.find((candidate) => candidate.method === method);
      if (endpoint === undefined) {
        sendJson(response, 405, {
          error: "Method Not Allowed",
          message: `${method} is not supported on ${url.pathname}`,
        });
      } else if (body === "too large") {
        sendJson(response, 413, { error: "Payload Too Large", message: "Request body exceeds the gateway limit" });
      } else {
        const reply = await endpoint.handle({ headers: headersOf(request), body, apiUrl: serverUrl });
        response.writeHead(reply.statusCode, {
          "content-type": "application/json; charset=utf-8",
          "cache-control": "no-store",
          ...CONSOLE_SECURITY_HEADERS,
        });
        response.end(JSON.stringify(reply.body));
      }
      return;
    }
    if (
      options.consoleDirectory !== undefined &&
      isConsolePath(url.pathname) &&
      (method === "GET" || method === "HEAD")
    ) {
      serveConsoleFile(options.consoleDirectory, request, response, rawPathOf(request));
      return;
    }
    const candidates = compiled
      .map((entry) => ({ entry, found: entry.pattern.exec(url.pathname) }))
      .filter((candidate) => candidate.found !== null);
    const matched = candidates.find((candidate) => candidate.entry.route.method === method);
    const body = await readBody(request);
    if (!matched) {
      if (candidates.length > 0) {
        sendJson(response, 405, {
          error: "Method Not Allowed",
          message: `${method} is not supported on ${url.pathname}`,
        });
      } else {
        sendJson(response, 404, { error: "Not Found", message: `No route for ${method} ${url.pathname}` });
      }
      return;
    }
    if (body === "too large") {
      sendJson(response, 413, { error: "Payload Too Large", message: "Request body exceeds the gateway limit" });
      return;
    }
    const pathParameters: Record<string, string> = {};
    matched.entry.parameterNames.forEach((name, index) => {
      pathParameters[name] = decodeSegment(matched.found?.[index + 1] ?? "");
    });
    const requestId = randomUUID();
    const event = buildEvent(request, url, { route: matched.entry.route, pathParameters }, body, requestId);
    const eventBytes = payloadBytes(event);
    if (eventBytes > LAMBDA_PAYLOAD_LIMIT) {
      // On AWS, Lambda refuses the invocation and API Gateway answers with its own error; no handler runs.
      sendJson(response, 413, {
        error: "Payload Too Large",
        message: `Request is ${eventBytes} bytes as API Gateway passes it to Lambda (body escaped or base64-encoded); Lambda's limit is ${LAMBDA_PAYLOAD_LIMIT} bytes`,
      });
      return;
    }
    const result = await matched.entry.handler(event, lambdaContext(matched.entry.route.id, requestId));
    const resultBytes = payloadBytes(result);
    if (resultBytes > LAMBDA_PAYLOAD_LIMIT) {
      // Lambda fails such an invocation and API Gateway answers 5xx: a defect of the route, made visible locally.
      console.error(JSON.stringify({ level: "ERROR", message: "response over Lambda's limit", resultBytes }));
      sendJson(response, 502, {
        error: "Bad Gateway",
        message: `Function response is ${resultBytes} bytes; Lambda's limit is ${LAMBDA_PAYLOAD_LIMIT} bytes`,
      });
      return;
    }
    sendResult(response, result);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error(JSON.stringify({ level: "ERROR", message: "local adapter failure", error: String(error) }));
      if (!response.headersSent)
        sendJson(response, 500, { error: "Internal Server Error", message: "Local adapter failure" });
      else response.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolvePromise());
  });
  const { port } = server.address() as AddressInfo;
  serverUrl = `http://127.0.0.1:${port}`;
  return {
    server,
    url: serverUrl,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}
