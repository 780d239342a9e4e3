/**
 * Starts and stops a local S3 for the payload bucket: s3rver (the `s3rver`
 * npm package, a Koa server running inside this process, no download and no
 * child process). It listens on 127.0.0.1 on a port the system picks, keeps
 * its objects in `dataDirectory` (or in a temporary directory removed on
 * stop and on exit), and creates the bucket if missing. Stopping closes the
 * HTTP server and its open connections.
 *
 * It has a credential of its own, random per start, and answers only
 * requests signed with it from a loopback `Host` (s3-request-gate.ts): the
 * service's S3 client signs with it (`S3_ACCESS_KEY_ID` /
 * `S3_SECRET_ACCESS_KEY`, see functions/store/payloads/payload-store.ts), and so do
 * the presigned URLs clients receive. DynamoDB Local's key id never reaches
 * S3, so no URL a client sees can carry it.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalCredentials } from "./dynamo-credentials.js";
import { admitS3Request } from "./s3-request-gate.js";

/** The payload bucket of `npm start` and the tests. */
export const LOCAL_PAYLOAD_BUCKET = "ats-payloads-local";
/** The Parquet export's bucket (issue 35; docs/export.md), beside it in the same local S3. */
export const LOCAL_EXPORT_BUCKET = "ats-export-local";

export interface RunningS3 {
  /** `http://127.0.0.1:<port>`: set it as `S3_ENDPOINT` (path-style addressing). */
  readonly endpoint: string;
  readonly bucket: string;
  /** The only credential this S3 accepts: set it as `S3_ACCESS_KEY_ID` / `S3_SECRET_ACCESS_KEY`. */
  readonly credentials: LocalCredentials;
  stop(): Promise<void>;
}

export interface S3StartOptions {
  /** Directory for the objects; a temporary directory, removed on stop, when omitted. */
  readonly dataDirectory?: string;
  /** Port to listen on; a free one when omitted. */
  readonly port?: number;
  /** Bucket to create if missing; {@link LOCAL_PAYLOAD_BUCKET} when omitted. */
  readonly bucket?: string;
}

/** The part of a Koa context the gate uses. */
interface GateContext {
  readonly method: string;
  readonly req: { readonly url?: string; readonly headers: Record<string, string | string[] | undefined> };
  status: number;
  type: string;
  body: unknown;
}
type KoaMiddleware = (context: GateContext, next: () => Promise<void>) => Promise<void>;

/** The part of s3rver's API used here (the package ships no types); s3rver is a Koa application. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  readonly httpServer?: Server;
  readonly middleware: KoaMiddleware[];
}
type S3rverConstructor = new (options: {
  readonly address: string;
  readonly port: number;
  readonly directory: string;
  readonly silent: boolean;
  readonly vhostBuckets: boolean;
  readonly configureBuckets: readonly { readonly name: string }[];
}) => S3rverInstance;
interface S3rverAccount {
  createKeyPair(accessKeyId: string, secretAccessKey: string): void;
}

const require = createRequire(import.meta.url);

/** A fresh credential for one local S3: random, and unrelated to DynamoDB Local's. */
export function randomS3Credentials(): LocalCredentials {
  return {
    accessKeyId: `ATSS3${randomBytes(10).toString("hex").toUpperCase()}`,
    secretAccessKey: randomBytes(24).toString("base64url"),
  };
}

/**
 * s3rver looks every request's access key id up in its (process-wide) dummy
 * account, so the local S3's own id is registered there; the signature itself
 * is checked by the gate. s3rver is pinned by the lock file; this module path
 * is its own.
 */
function registerAccessKey(credentials: LocalCredentials): void {
  const { DUMMY_ACCOUNT } = require("s3rver/lib/models/account") as { DUMMY_ACCOUNT: S3rverAccount };
  DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
}

/** A string per header, as the gate reads them. */
function singleValued(headers: GateContext["req"]["headers"]): Record<string, string | undefined> {
  const result: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) result[name] = Array.isArray(value) ? value.join(",") : value;
  return result;
}

/** The gate as the first middleware of s3rver's Koa application: a refused request gets S3's 403 AccessDenied. */
function gateMiddleware(credentials: LocalCredentials, port: () => number): KoaMiddleware {
  return async function localS3Gate(context, next) {
    const decision = await admitS3Request(
      { method: context.method, target: context.req.url ?? "/", headers: singleValued(context.req.headers) },
      { port: port(), credentials },
    );
    if (decision.allowed) {
      await next();
      return;
    }
    context.status = 403;
    context.type = "application/xml";
    context.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>${decision.reason}</Message></Error>`;
  };
}

export async function startS3Local(options: S3StartOptions = {}): Promise<RunningS3> {
  const S3rver = require("s3rver") as S3rverConstructor;
  const credentials = randomS3Credentials();
  registerAccessKey(credentials);
  const temporary = options.dataDirectory === undefined;
  const directory = options.dataDirectory ?? mkdtempSync(join(tmpdir(), "ats-s3-local-"));
  mkdirSync(directory, { recursive: true });
  const removeTemporary = () => {
    if (temporary) rmSync(directory, { recursive: true, force: true });
  };
  process.once("exit", removeTemporary);

  const bucket = options.bucket ?? LOCAL_PAYLOAD_BUCKET;
  const server = new S3rver({
    address: "127.0.0.1",
    port: options.port ?? 0,
    directory,
    silent: true,
    vhostBuckets: false,
    configureBuckets: [{ name: bucket }, { name: LOCAL_EXPORT_BUCKET }],
  });
  let listeningPort = 0;
  server.middleware.unshift(gateMiddleware(credentials, () => listeningPort));

  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (error) {
    process.removeListener("exit", removeTemporary);
    removeTemporary();
    throw new Error(`Could not start the local S3 (s3rver) in ${directory}`, { cause: error });
  }
  listeningPort = address.port;

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const closed = server.close();
    // Keep-alive sockets of clients not yet destroyed would hold close() open.
    server.httpServer?.closeAllConnections();
    await closed;
    process.removeListener("exit", removeTemporary);
    removeTemporary();
  };

  return { endpoint: `http://127.0.0.1:${address.port}`, bucket, credentials, stop };
}

/** The environment that points the service's payload store and export at a running local S3, with its credential. */
export function s3Environment(s3: RunningS3): Record<string, string> {
  return {
    S3_ENDPOINT: s3.endpoint,
    PAYLOAD_BUCKET: s3.bucket,
    EXPORT_BUCKET: LOCAL_EXPORT_BUCKET,
    S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
  };
}
