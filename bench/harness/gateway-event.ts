/**
 * API Gateway HTTP API (payload format 2.0) events and Lambda contexts for
 * invoking a handler module in-process, shaped like the ones
 * local/http-adapter.ts builds for a matched request (minus the socket).
 */
import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import type { RouteDefinition } from "../../functions/routes.js";

export type LambdaHttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export interface InvokeRequest {
  /** The concrete path, e.g. `/api/sdk/sessions/ses_…`. */
  readonly path: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /** Header names in lower case, as API Gateway delivers them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export function gatewayEvent(route: RouteDefinition, request: InvokeRequest): APIGatewayProxyEventV2 {
  const routeKey = `${route.method} ${route.path}`;
  const query = request.query ?? {};
  const rawQueryString = new URLSearchParams(query).toString();
  const now = new Date();
  const headers: Record<string, string> = {
    host: "127.0.0.1",
    "user-agent": "ats-bench",
    ...request.headers,
    ...(request.body === undefined ? {} : { "content-length": String(Buffer.byteLength(request.body)) }),
  };
  const event: APIGatewayProxyEventV2 = {
    version: "2.0",
    routeKey,
    rawPath: request.path,
    rawQueryString,
    headers,
    requestContext: {
      accountId: "000000000000",
      apiId: "bench",
      domainName: "127.0.0.1",
      domainPrefix: "bench",
      http: {
        method: route.method,
        path: request.path,
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: "ats-bench",
      },
      requestId: randomUUID(),
      routeKey,
      stage: "$default",
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
  if (Object.keys(query).length > 0) event.queryStringParameters = { ...query };
  if (request.pathParameters !== undefined && Object.keys(request.pathParameters).length > 0)
    event.pathParameters = { ...request.pathParameters };
  if (request.body !== undefined) event.body = request.body;
  return event;
}

export function lambdaContext(functionName: string, memoryMb: number): Context {
  const deadline = Date.now() + 10_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "bench",
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
