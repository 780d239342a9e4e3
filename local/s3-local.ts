/**
 * Starts and stops a local S3 for the payload bucket: s3rver (the `s3rver`
 * npm package, a Koa server running inside this process, no download and no
 * child process). It listens on 127.0.0.1 on a port the system picks, keeps
 * its objects in `dataDirectory` (or in a temporary directory removed on
 * stop and on exit), and creates the bucket if missing. Stopping closes the
 * HTTP server and its open connections.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_LOCAL_CREDENTIALS } from "./dynamo-credentials.js";

/** The payload bucket of `npm start` and the tests. */
export const LOCAL_PAYLOAD_BUCKET = "ats-payloads-local";

export interface RunningS3 {
  /** `http://127.0.0.1:<port>`: set it as `S3_ENDPOINT` (path-style addressing). */
  readonly endpoint: string;
  readonly bucket: string;
  stop(): Promise<void>;
}

export interface S3StartOptions {
  /** Directory for the objects; a temporary directory, removed on stop, when omitted. */
  readonly dataDirectory?: string;
  /** Port to listen on; a free one when omitted. */
  readonly port?: number;
  /** Bucket to create if missing; {@link LOCAL_PAYLOAD_BUCKET} when omitted. */
  readonly bucket?: string;
  /** Access key ids the service's S3 clients will use, besides the environment's. */
  readonly accessKeyIds?: readonly string[];
}

/** The part of s3rver's API used here (the package ships no types). */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  readonly httpServer?: Server;
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

/**
 * s3rver does not check SigV4 signatures but does require a known access key
 * id (by default only `S3RVER`). The service modules sign with the
 * environment's credentials (the local DynamoDB's, see dynamo-credentials.ts,
 * or a developer's own key id when one is exported), so those ids — and any
 * the caller names — are registered with s3rver's (process-wide) dummy
 * account. s3rver is pinned by the lock file; this module path is its own.
 */
function acceptLocalAccessKeys(extra: readonly string[]): void {
  const { DUMMY_ACCOUNT } = require("s3rver/lib/models/account") as { DUMMY_ACCOUNT: S3rverAccount };
  const ids = new Set([
    DEFAULT_LOCAL_CREDENTIALS.accessKeyId,
    process.env.AWS_ACCESS_KEY_ID ?? DEFAULT_LOCAL_CREDENTIALS.accessKeyId,
    ...extra,
  ]);
  for (const id of ids) DUMMY_ACCOUNT.createKeyPair(id, DEFAULT_LOCAL_CREDENTIALS.secretAccessKey);
}

export async function startS3Local(options: S3StartOptions = {}): Promise<RunningS3> {
  const S3rver = require("s3rver") as S3rverConstructor;
  acceptLocalAccessKeys(options.accessKeyIds ?? []);
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
    configureBuckets: [{ name: bucket }],
  });

  let address: AddressInfo;
  try {
    address = await server.run();
  } catch (error) {
    process.removeListener("exit", removeTemporary);
    removeTemporary();
    throw new Error(`Could not start the local S3 (s3rver) in ${directory}`, { cause: error });
  }

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

  return { endpoint: `http://127.0.0.1:${address.port}`, bucket, stop };
}
