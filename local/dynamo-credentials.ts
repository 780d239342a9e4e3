/**
 * Who may use the local DynamoDB. DynamoDB Local listens on every interface
 * (it has no option to bind to loopback) and checks no signature, but without
 * `-sharedDb` it keeps one database per access key id (and region): a client
 * with another key id sees an empty database of its own. So the local stack
 * uses a random key id, kept per data directory in a file only its owner can
 * read, and treats it as the local secret; an in-memory instance (tests,
 * benchmarks) gets a fresh one each start.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface LocalCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export const LOCAL_REGION = "us-east-1";

/** For a DynamoDB someone else runs (`DYNAMODB_ENDPOINT`) when the environment names no credentials. */
export const DEFAULT_LOCAL_CREDENTIALS: LocalCredentials = { accessKeyId: "local", secretAccessKey: "local" };

const CREDENTIALS_FILE = "credentials.json";
/** The single database file of a DynamoDB Local started with `-sharedDb` (before per-key databases). */
const SHARED_DATABASE_FILE = "shared-local-instance.db";

export function randomCredentials(): LocalCredentials {
  // Letters and digits only: the key id names DynamoDB Local's database file.
  return {
    accessKeyId: `ATSLOCAL${randomBytes(16).toString("hex").toUpperCase()}`,
    secretAccessKey: randomBytes(24).toString("hex"),
  };
}

/** The database file DynamoDB Local keeps for these credentials. */
export function databaseFileOf(credentials: LocalCredentials): string {
  return `${credentials.accessKeyId}_${LOCAL_REGION}.db`;
}

/**
 * The credentials of the DynamoDB Local data in `dataDirectory`: read from its credentials file, or
 * created (mode 0600, in a 0700 directory) on first use. A database left by a `-sharedDb` instance is
 * taken over, so an existing local stack keeps its data.
 */
export function credentialsFor(dataDirectory: string): LocalCredentials {
  mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
  chmodSync(dataDirectory, 0o700);
  const path = join(dataDirectory, CREDENTIALS_FILE);
  const credentials = existsSync(path) ? readCredentials(path) : randomCredentials();
  if (!existsSync(path)) {
    // Written under a temporary name and renamed: never a half-written file.
    writeFileSync(`${path}.tmp`, `${JSON.stringify(credentials)}\n`, { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
  }
  // Checked on every start, so a start that died before taking the shared database over still does it.
  const shared = join(dataDirectory, SHARED_DATABASE_FILE);
  const own = join(dataDirectory, databaseFileOf(credentials));
  if (existsSync(shared) && !existsSync(own)) renameSync(shared, own);
  return credentials;
}

function readCredentials(path: string): LocalCredentials {
  try {
    const stored = JSON.parse(readFileSync(path, "utf8")) as Partial<LocalCredentials>;
    if (typeof stored.accessKeyId === "string" && typeof stored.secretAccessKey === "string") {
      return { accessKeyId: stored.accessKeyId, secretAccessKey: stored.secretAccessKey };
    }
  } catch {
    // Reported below.
  }
  throw new Error(
    `${path} is damaged: it must hold {"accessKeyId","secretAccessKey"} (the key of the local database in this directory). Restore it, or move the directory away to start afresh.`,
  );
}
