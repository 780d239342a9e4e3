/**
 * Settings of the local stack, from the environment, and the `local.json` it writes; and what a command that
 * needs a running stack (`npm run demo`) says when it finds none.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root: route entries are relative to it. */
export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export interface LocalSettings {
  readonly dataDirectory: string;
  readonly port: number;
  readonly tableName: string;
  /** An already running DynamoDB; when unset, DynamoDB Local is started. */
  readonly dynamodbEndpoint: string | undefined;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): LocalSettings {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  return {
    dataDirectory: resolve(env.DATA_DIR || ".data"),
    port,
    tableName: env.TABLE_NAME || "ats-local",
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
  };
}

export interface LocalJson {
  readonly apiUrl: string;
  readonly apiKey: string;
  /** Access token of the dev user (owner of the dev organisation), for the key-management API. */
  readonly userToken: string;
  readonly dynamodbEndpoint: string;
  readonly tableName: string;
}

export function localJsonPath(settings: LocalSettings): string {
  return join(settings.dataDirectory, "local.json");
}

export function readLocalJson(settings: LocalSettings): Partial<LocalJson> | undefined {
  const path = localJsonPath(settings);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Partial<LocalJson>;
  } catch {
    return undefined;
  }
}

export function writeLocalJson(settings: LocalSettings, content: LocalJson): void {
  mkdirSync(settings.dataDirectory, { recursive: true });
  writeFileSync(localJsonPath(settings), `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
}

/** What to do when no local stack is found at `settings`: one paragraph, naming every way to point at one. */
export function noLocalStackHelp(settings: LocalSettings): string {
  return [
    `No local stack found: ${localJsonPath(settings)} is missing or incomplete.`,
    "Start one with `npm start` (in another terminal);",
    "if it runs with a DATA_DIR of its own, give this command the same DATA_DIR=<dir>,",
    "or export ATS_BASE_URL and ATS_API_KEY as the banner of `npm start` shows.",
  ].join(" ");
}
