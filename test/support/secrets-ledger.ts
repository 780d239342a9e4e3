/**
 * A ledger of every secret the test run handles (API keys, access tokens),
 * shared by all test workers through a file. After the suite, the global
 * teardown scans the whole table for each of them, and every test file's
 * captured log output is checked for them too.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";

export const SECRET_PATTERN =
  /atsf_[\w-]{20,}\.[\w-]{43}|ats_(?:live|test)_[0-9A-Za-z]{38}|eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*/g;

export function ledgerPath(): string {
  const path = process.env.ATS_TEST_SECRETS_LEDGER;
  if (!path) throw new Error("ATS_TEST_SECRETS_LEDGER is not set (see test/support/global-setup.ts)");
  return path;
}

/** Records every secret found in `text`. */
export function rememberSecretsIn(text: string): void {
  const found = text.match(SECRET_PATTERN);
  if (found) appendFileSync(ledgerPath(), `${found.join("\n")}\n`);
}

export function readLedger(path: string): string[] {
  if (!existsSync(path)) return [];
  return [...new Set(readFileSync(path, "utf8").split("\n").filter(Boolean))];
}
