/**
 * The local stand-in for the Cognito user pool: an RSA signing key and a user
 * directory under `$DATA_DIR/identity/`, a JWKS document, and short-lived
 * RS256 access tokens shaped like Cognito's (`token_use: access`,
 * `client_id`, `username`). The handlers verify them with the same
 * aws-jwt-verify code path they use on AWS.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject, randomUUID, sign } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const LOCAL_CLIENT_ID = "ats-local-client";
/** Access tokens of the local issuer live this long (Cognito's default is one hour). */
export const LOCAL_TOKEN_SECONDS = 60 * 60;

export interface LocalUser {
  readonly userId: string;
  readonly email: string;
}

export interface LocalSignIn {
  readonly accessToken: string;
  readonly expiresAt: string;
}

interface StoredKey {
  readonly kid: string;
  readonly privateKeyPem: string;
}

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString("base64url");
}

/** Encodes and signs a JWT (RS256 with `key`; `alg: none` leaves the signature empty). */
export function encodeJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key?: KeyObject): string {
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  const signature = key === undefined ? "" : sign("sha256", Buffer.from(signingInput), key).toString("base64url");
  return `${signingInput}.${signature}`;
}

export class LocalIdentity {
  private constructor(
    /** Where the signing key and `users.json` live. */
    readonly directory: string,
    readonly kid: string,
    readonly privateKey: KeyObject,
  ) {}

  /** Loads the signing key from `directory`, generating it on first use. */
  static open(directory: string): LocalIdentity {
    mkdirSync(directory, { recursive: true });
    const keyPath = join(directory, "signing-key.json");
    if (!existsSync(keyPath)) {
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const stored: StoredKey = {
        kid: randomUUID(),
        privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      };
      writeFileSync(keyPath, JSON.stringify(stored), { mode: 0o600 });
    }
    const stored = JSON.parse(readFileSync(keyPath, "utf8")) as StoredKey;
    return new LocalIdentity(directory, stored.kid, createPrivateKey(stored.privateKeyPem));
  }

  /** The public keys, as served at `/.well-known/jwks.json`. */
  jwks(): { keys: Record<string, unknown>[] } {
    const publicJwk = this.privateKey.export({ format: "jwk" });
    return { keys: [{ kty: publicJwk.kty, n: publicJwk.n, e: publicJwk.e, kid: this.kid, alg: "RS256", use: "sig" }] };
  }

  /** Every user of the local directory, in the order they were created. */
  listUsers(): LocalUser[] {
    const path = join(this.directory, "users.json");
    return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as LocalUser[]) : [];
  }

  /** The user with this email (matched case-insensitively, as Cognito does), if the local directory knows it. */
  findUser(email: string): LocalUser | undefined {
    return findByEmail(this.listUsers(), email);
  }

  /** The user with this email, created (with a new subject id) if unknown. */
  ensureUser(email: string): LocalUser {
    const users = this.listUsers();
    const existing = findByEmail(users, email);
    if (existing !== undefined) return existing;
    const user = { userId: randomUUID(), email };
    writeFileSync(join(this.directory, "users.json"), JSON.stringify([...users, user], null, 2));
    return user;
  }

  /** A Cognito-shaped access token for `user`, issued by `issuer`. */
  issueAccessToken(user: LocalUser, issuer: string, lifetimeSeconds = LOCAL_TOKEN_SECONDS): string {
    return this.signIn(user, issuer, lifetimeSeconds).accessToken;
  }

  /** An access token for `user` with the time it expires (ISO 8601), as the console's sign-in returns it. */
  signIn(user: LocalUser, issuer: string, lifetimeSeconds = LOCAL_TOKEN_SECONDS): LocalSignIn {
    const now = Math.floor(Date.now() / 1000);
    const accessToken = encodeJwt(
      { alg: "RS256", typ: "JWT", kid: this.kid },
      {
        iss: issuer,
        sub: user.userId,
        username: user.email,
        client_id: LOCAL_CLIENT_ID,
        token_use: "access",
        scope: "aws.cognito.signin.user.admin",
        auth_time: now,
        iat: now,
        exp: now + lifetimeSeconds,
        jti: randomUUID(),
      },
      this.privateKey,
    );
    return { accessToken, expiresAt: new Date((now + lifetimeSeconds) * 1000).toISOString() };
  }
}

function findByEmail(users: readonly LocalUser[], email: string): LocalUser | undefined {
  const wanted = email.toLowerCase();
  return users.find((user) => user.email.toLowerCase() === wanted);
}

/**
 * Points the handlers at the local issuer (read on their first request) and,
 * given the identity's directory, the members routes at its user directory
 * (`LOCAL_IDENTITY_DIR`: a member added by email becomes a local user).
 */
export function configureLocalIssuer(issuer: string, identity?: LocalIdentity): void {
  process.env.JWT_ISSUER = issuer;
  process.env.JWT_CLIENT_ID = LOCAL_CLIENT_ID;
  if (identity !== undefined) process.env.LOCAL_IDENTITY_DIR = identity.directory;
}
