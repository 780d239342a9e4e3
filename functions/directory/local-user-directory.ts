/**
 * The local issuer's user directory (`<LOCAL_IDENTITY_DIR>/users.json`, the
 * file local/local-identity.ts signs tokens for): `[{ userId, email }]`.
 * Emails are matched case-insensitively, as Cognito matches them.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DirectoryUser, UserDirectory } from "./user-directory.js";

export class LocalUserDirectory implements UserDirectory {
  constructor(private readonly directory: string) {}

  async ensureUser(email: string): Promise<DirectoryUser> {
    const path = join(this.directory, "users.json");
    const users = existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as DirectoryUser[]) : [];
    const existing = users.find((user) => user.email.toLowerCase() === email.toLowerCase());
    if (existing !== undefined) return existing;
    const user = { userId: randomUUID(), email };
    mkdirSync(this.directory, { recursive: true });
    writeFileSync(path, JSON.stringify([...users, user], null, 2));
    return user;
  }
}
