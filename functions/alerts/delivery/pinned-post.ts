/**
 * One HTTP POST of a delivery, to an address checked beforehand (destination-url-policy.ts): the socket connects to
 * that address whatever DNS says now (a `lookup` that returns it), TLS still verifies the URL's host name, redirects
 * are not followed (a 3xx is an answer like any other), the whole exchange is bounded by a timeout, and at most
 * {@link RESPONSE_BYTES} of the answer are read.
 */
import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { DeliveryTarget } from "./destination-url-policy.js";

/** Bytes of a response body read at most (kept for the error message of a failure). */
export const RESPONSE_BYTES = 4096;

export interface PostResult {
  readonly status: number;
  /** The start of the response body (at most {@link RESPONSE_BYTES}), as text. */
  readonly body: string;
}

function pinnedLookup(target: DeliveryTarget): LookupFunction {
  return function lookupCheckedAddress(_hostname, options, callback) {
    if (options.all === true) {
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
      return;
    }
    callback(null, target.address, target.family);
  };
}

/** POSTs `body` (JSON) to the target; rejects on a network error or after `timeoutMs`. */
export function postPinned(
  target: DeliveryTarget,
  body: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<PostResult> {
  const { url } = target;
  const options: RequestOptions = {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      "user-agent": "ats-alerts/1",
      ...headers,
    },
    lookup: pinnedLookup(target),
    // A fresh connection per delivery: a pooled socket could be one made to another address.
    agent: false,
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const request = send(url, options, (response) => {
      const chunks: Buffer[] = [];
      let received = 0;
      const finish = () =>
        settle(() => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      response.on("data", (chunk: Buffer) => {
        if (received >= RESPONSE_BYTES) return;
        chunks.push(chunk.subarray(0, RESPONSE_BYTES - received));
        received += chunk.length;
        if (received >= RESPONSE_BYTES) {
          finish();
          response.destroy();
        }
      });
      response.on("end", finish);
      response.on("error", (error) => settle(() => reject(error)));
    });
    const timer = setTimeout(() => {
      const error = new Error(`No answer within ${timeoutMs / 1000} s`);
      settle(() => reject(error));
      request.destroy(error);
    }, timeoutMs);
    request.on("error", (error) => settle(() => reject(error)));
    request.end(body);
  });
}
