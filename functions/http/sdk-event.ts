import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { Principal } from "../domain/principal.js";

/**
 * The API Gateway (HTTP API, payload v2) event as it moves through the
 * middleware chain: authentication adds `principal`, body validation adds
 * `input`.
 */
export interface SdkEvent extends APIGatewayProxyEventV2 {
  principal?: Principal;
  input?: unknown;
}

export type HttpResult = APIGatewayProxyStructuredResultV2;
