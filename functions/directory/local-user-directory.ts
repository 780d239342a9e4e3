/**
 * The local issuer's user directory (`<LOCAL_IDENTITY_DIR>/users.json`, the
 * file local/local-identity.ts signs tokens for): `[{ userId, email }]`.
 * Emails are matched case-insensitively, as Cognito matches them. Local users
 * have no password, so none is ever awaiting a first sign-in, and nothing is
 * emailed: a new user appears on the local sign-in page.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DirectoryUser, UserDirectory } from "./user-directory.js";

interface StoredUser {
  readonly userId: string;
  readonly email: string;
}

export class LocalUserDirectory implements UserDirectory {
  constructor(private readonly directory: string) {}

  private path(): string {
    return join(this.directory, "users.json");
  }

  private users(): StoredUser[] {
    return existsSync(this.path()) ? (JSON.parse(readFileSync(this.path(), "utf8")) as StoredUser[]) : [];
  }

  async findUser(email: string): Promise<DirectoryUser | undefined> {
    const wanted = email.toLowerCase();
    const found = this.users().find((user) => user.email.toLowerCase() === wanted);
    return found === undefined ? undefined : { userId: found.userId, email: found.email, firstSignInPending: false };
  }

  async prepareSignIn(email: string): Promise<DirectoryUser> {
    const existing = await this.findUser(email);
    if (existing !== undefined) return existing;
    const user = { userId: randomUUID(), email };
    mkdirSync(this.directory, { recursive: true });
    writeFileSync(this.path(), JSON.stringify([...this.users(), user], null, 2));
    return { ...user, firstSignInPending: false };
  }
}
