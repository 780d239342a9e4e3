/**
 * The user directory port: where the people who sign in live. Inviting a
 * person by email finds their user there, or creates it (and never deletes
 * one: removing a member only removes the membership). Only a user the
 * directory has to email (a new one, or one who never signed in) costs an
 * email; the caller counts the invitation before asking for one.
 *
 * Chosen by configuration, once per container:
 * - `LOCAL_IDENTITY_DIR` set: the local issuer's directory (`users.json` of
 *   `npm start` and the tests, local-user-directory.ts);
 * - otherwise a Cognito issuer in `JWT_ISSUER`
 *   (`https://cognito-idp.<region>.amazonaws.com/<userPoolId>`, what the stack
 *   gives every function that verifies tokens): that user pool
 *   (cognito-user-directory.ts, `AdminCreateUser` — Cognito emails the temporary password).
 * Anything else is a deployment fault (500, logged), never guessed.
 */
import { optionalEnv } from "../runtime/env.js";

export interface DirectoryUser {
  /** The identity provider's subject (`sub`): the `userId` of memberships. */
  readonly userId: string;
  readonly email: string;
  /**
   * Created but never signed in (Cognito's `FORCE_CHANGE_PASSWORD`): their temporary password may have
   * expired, so an invitation sends a fresh one.
   */
  readonly firstSignInPending: boolean;
}

export interface UserDirectory {
  /** The user with this email (case-insensitive), if the directory has one. Sends nothing. */
  findUser(email: string): Promise<DirectoryUser | undefined>;
  /**
   * Makes sure the person can sign in to answer an invitation: creates the user when the directory has
   * none (Cognito emails a temporary password), or sends a fresh temporary password to a user whose
   * first sign-in is pending. A user who has signed in before is returned as is (nothing sent).
   */
  prepareSignIn(email: string): Promise<DirectoryUser>;
}

const COGNITO_ISSUER = /^https:\/\/cognito-idp\.([a-z0-9-]+)\.amazonaws\.com\/([\w-]+_[0-9A-Za-z]+)$/;

/** The Cognito user pool of an issuer URL, if it is one. */
export function cognitoPoolOf(issuer: string | undefined): { region: string; userPoolId: string } | undefined {
  const match = COGNITO_ISSUER.exec(issuer ?? "");
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return { region: match[1], userPoolId: match[2] };
}

let directory: Promise<UserDirectory> | undefined;

async function createDirectory(): Promise<UserDirectory> {
  const localDirectory = optionalEnv("LOCAL_IDENTITY_DIR");
  if (localDirectory !== undefined) {
    const { LocalUserDirectory } = await import("./local-user-directory.js");
    return new LocalUserDirectory(localDirectory);
  }
  const pool = cognitoPoolOf(optionalEnv("JWT_ISSUER"));
  if (pool !== undefined) {
    const { CognitoUserDirectory } = await import("./cognito-user-directory.js");
    return new CognitoUserDirectory(pool);
  }
  throw new Error("No user directory configured: set LOCAL_IDENTITY_DIR, or JWT_ISSUER to a Cognito user pool");
}

export function userDirectory(): Promise<UserDirectory> {
  directory ??= createDirectory().catch((error: unknown) => {
    directory = undefined;
    throw error;
  });
  return directory;
}
