/**
 * What the local S3 answers before s3rver sees a request. s3rver checks no
 * SigV4 signature (it only looks the access key id up), so on its own anyone
 * who finds its port — a web page in the developer's browser included — could
 * list and read every tenant's offloaded payloads. The gate:
 *
 * 1. answers only a loopback `Host` (`127.0.0.1`, `localhost` or `[::1]` with
 *    the server's own port): a page on a DNS-rebound name is refused;
 * 2. requires a valid AWS Signature Version 4 by the local S3's own
 *    credential, in the `Authorization` header (the service's S3 client) or
 *    in the query string (a presigned URL, unexpired): an unsigned request,
 *    another key id, a tampered signature or an expired URL is refused.
 *
 * The credential is the local S3's alone (s3-local.ts makes a random one per
 * start): it is neither DynamoDB Local's key id — the local stack's one
 * secret, which nothing a client of the API sees may carry — nor derived from
 * it, so a presigned URL given to a client reveals nothing about the database.
 */
import { createHash, createHmac, type Hash, type Hmac, timingSafeEqual } from "node:crypto";
import { SignatureV4 } from "@smithy/signature-v4";
import type { LocalCredentials } from "./dynamo-credentials.js";

/** A request as the gate sees it: the raw target (path and query as sent) and lower-cased headers. */
export interface GateRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export type GateDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/** How far a header-signed request's `X-Amz-Date` may be from now (S3's own bound). */
const CLOCK_SKEW_MS = 15 * 60 * 1000;
/** The longest validity a presigned URL may claim (S3's own bound: 7 days). */
const MAX_PRESIGNED_SECONDS = 7 * 24 * 3600;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** SHA-256 (or HMAC-SHA-256 with a secret) in the shape the signer expects (@smithy/types Checksum). */
class NodeSha256 {
  private readonly hash: Hash | Hmac;

  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash("sha256") : createHmac("sha256", bytesOf(secret));
  }

  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytesOf(data));
  }

  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

function bytesOf(data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** Whether `host` is a loopback name with exactly this port. */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const separator = host.lastIndexOf(":");
  if (separator <= 0) return false;
  return LOOPBACK_HOSTS.has(host.slice(0, separator)) && host.slice(separator + 1) === String(port);
}

/** `20261125T101500Z` → its time, or undefined when malformed. */
function parseAmzDate(value: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? "");
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  const time = Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second);
  return Number.isNaN(time) ? undefined : new Date(time);
}

interface Scope {
  readonly accessKeyId: string;
  readonly region: string;
  readonly service: string;
}

/** `AKID/20261125/us-east-1/s3/aws4_request` → its parts. */
function parseCredentialScope(value: string | undefined): Scope | undefined {
  const parts = (value ?? "").split("/");
  if (parts.length !== 5 || parts[4] !== "aws4_request") return undefined;
  const [accessKeyId, , region, service] = parts;
  if (!accessKeyId || !region || !service) return undefined;
  return { accessKeyId, region, service };
}

/** Query parameters, decoded, as the signer takes them (a repeated name as a list). */
function queryOf(search: string, without: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    if (name === without) continue;
    const previous = query[name];
    query[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return query;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The signature this credential makes for the request as described (`signedHeaders` only), by the signer
 * the AWS SDK itself uses: S3 signs the path as sent (no double encoding).
 */
async function expectedSignature(
  credentials: LocalCredentials,
  scope: Scope,
  request: {
    readonly method: string;
    readonly path: string;
    readonly query: Record<string, string | string[]>;
    readonly headers: Record<string, string>;
  },
  signing: {
    readonly date: Date;
    readonly presignSeconds?: number | undefined;
    readonly payloadHash?: string | undefined;
  },
): Promise<string | undefined> {
  const signer = new SignatureV4({
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
    region: scope.region,
    service: scope.service,
    sha256: NodeSha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const httpRequest = {
    method: request.method,
    protocol: "http:",
    hostname: "local",
    path: request.path,
    query: request.query,
    headers: request.headers,
  };
  if (signing.presignSeconds !== undefined) {
    // A presigned URL names its payload hash in the query (UNSIGNED-PAYLOAD); the signer reads it from a
    // header, which must then be neither signed nor moved into the query.
    const payloadHeader = "x-amz-content-sha256";
    const signed = await signer.presign(
      {
        ...httpRequest,
        headers: {
          ...request.headers,
          ...(signing.payloadHash === undefined ? {} : { [payloadHeader]: signing.payloadHash }),
        },
      },
      {
        signingDate: signing.date,
        expiresIn: signing.presignSeconds,
        unsignableHeaders: new Set([payloadHeader]),
        unhoistableHeaders: new Set([...Object.keys(request.headers), payloadHeader]),
      },
    );
    const signature = signed.query?.["X-Amz-Signature"];
    return typeof signature === "string" ? signature : undefined;
  }
  const signed = await signer.sign(httpRequest, { signingDate: signing.date });
  return /Signature=([0-9a-f]+)/.exec(String(signed.headers.authorization ?? ""))?.[1];
}

/** The request's headers named in `SignedHeaders` (all of them must be present). */
function signedHeadersOf(
  headers: GateRequest["headers"],
  names: string | undefined,
): Record<string, string> | undefined {
  if (names === undefined || names === "") return undefined;
  const selected: Record<string, string> = {};
  for (const name of names.split(";")) {
    const value = headers[name];
    if (value === undefined) return undefined;
    selected[name] = value;
  }
  return selected;
}

async function checkHeaderSignature(
  request: GateRequest,
  credentials: LocalCredentials,
  nowMs: number,
): Promise<GateDecision> {
  const authorization = request.headers.authorization ?? "";
  const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(
    authorization,
  );
  if (match === null) return { allowed: false, reason: "Authorization is not an AWS Signature Version 4" };
  const [, credential, signedHeaderNames, signature] = match;
  const scope = parseCredentialScope(credential);
  if (scope === undefined || scope.accessKeyId !== credentials.accessKeyId) {
    return { allowed: false, reason: "Unknown access key" };
  }
  const date = parseAmzDate(request.headers["x-amz-date"]);
  if (date === undefined || Math.abs(nowMs - date.getTime()) > CLOCK_SKEW_MS) {
    return { allowed: false, reason: "X-Amz-Date is missing or too far from now" };
  }
  const headers = signedHeadersOf(request.headers, signedHeaderNames);
  if (headers === undefined || headers.host === undefined) {
    return { allowed: false, reason: "A signed header is missing" };
  }
  const [path = "/", search = ""] = splitTarget(request.target);
  const expected = await expectedSignature(
    credentials,
    scope,
    { method: request.method, path, query: queryOf(search, ""), headers },
    { date },
  );
  return expected !== undefined && signature !== undefined && sameText(expected, signature)
    ? { allowed: true }
    : { allowed: false, reason: "The signature does not match" };
}

async function checkPresignedUrl(
  request: GateRequest,
  credentials: LocalCredentials,
  nowMs: number,
): Promise<GateDecision> {
  const [path = "/", search = ""] = splitTarget(request.target);
  const parameters = new URLSearchParams(search);
  if (parameters.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256") {
    return { allowed: false, reason: "Unsupported signing algorithm" };
  }
  const scope = parseCredentialScope(parameters.get("X-Amz-Credential") ?? undefined);
  if (scope === undefined || scope.accessKeyId !== credentials.accessKeyId) {
    return { allowed: false, reason: "Unknown access key" };
  }
  const date = parseAmzDate(parameters.get("X-Amz-Date") ?? undefined);
  const expires = Number(parameters.get("X-Amz-Expires"));
  if (date === undefined || !Number.isInteger(expires) || expires < 1 || expires > MAX_PRESIGNED_SECONDS) {
    return { allowed: false, reason: "X-Amz-Date or X-Amz-Expires is malformed" };
  }
  if (nowMs > date.getTime() + expires * 1000 || date.getTime() - nowMs > CLOCK_SKEW_MS) {
    return { allowed: false, reason: "The URL has expired" };
  }
  const headers = signedHeadersOf(request.headers, parameters.get("X-Amz-SignedHeaders") ?? undefined);
  if (headers === undefined || headers.host === undefined) {
    return { allowed: false, reason: "A signed header is missing" };
  }
  const signature = parameters.get("X-Amz-Signature") ?? "";
  const expected = await expectedSignature(
    credentials,
    scope,
    { method: request.method, path, query: queryOf(search, "X-Amz-Signature"), headers },
    { date, presignSeconds: expires, payloadHash: parameters.get("X-Amz-Content-Sha256") ?? undefined },
  );
  return expected !== undefined && sameText(expected, signature)
    ? { allowed: true }
    : { allowed: false, reason: "The signature does not match" };
}

function splitTarget(target: string): [string, string] {
  const question = target.indexOf("?");
  return question === -1 ? [target, ""] : [target.slice(0, question), target.slice(question + 1)];
}

/** Whether the local S3 serves this request (see the module comment). */
export async function admitS3Request(
  request: GateRequest,
  options: { readonly port: number; readonly credentials: LocalCredentials; readonly nowMs?: number },
): Promise<GateDecision> {
  if (!isLoopbackHost(request.headers.host, options.port)) {
    return { allowed: false, reason: "The local S3 answers only a loopback Host" };
  }
  const nowMs = options.nowMs ?? Date.now();
  if (request.headers.authorization !== undefined) {
    return checkHeaderSignature(request, options.credentials, nowMs);
  }
  if (/[?&]X-Amz-Signature=/.test(request.target)) {
    return checkPresignedUrl(request, options.credentials, nowMs);
  }
  return { allowed: false, reason: "Unsigned requests are refused" };
}
