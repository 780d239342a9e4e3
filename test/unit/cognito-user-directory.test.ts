/**
 * The Cognito user directory's requests (functions/directory/cognito-user-directory.ts), against a stand-in
 * for the SDK client that answers as Cognito does: what is sent to find a user, create one (Cognito emails
 * the temporary password), or send a fresh temporary password to one who never signed in.
 */
import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  UserNotFoundException,
  UsernameExistsException,
} from "@aws-sdk/client-cognito-identity-provider";
import { describe, expect, it } from "vitest";
import { type CognitoSender, CognitoUserDirectory } from "../../functions/directory/cognito-user-directory.js";

const POOL = { region: "eu-west-1", userPoolId: "eu-west-1_Abc123" };
const SUB = "8e2d4c6a-1b3f-4a5e-9c7d-0f2e4a6c8b13";

type Status = "CONFIRMED" | "FORCE_CHANGE_PASSWORD";

/** A user pool of at most one user, recording every command sent. */
function fakePool(initial: { status: Status } | undefined, options: { createdMeanwhile?: boolean } = {}) {
  let user = initial;
  const sent: { name: string; input: Record<string, unknown> }[] = [];
  const client = {
    async send(command: unknown) {
      const name = (command as object).constructor.name;
      const input = (command as { input: Record<string, unknown> }).input;
      sent.push({ name, input });
      if (command instanceof AdminGetUserCommand) {
        if (user === undefined) throw new UserNotFoundException({ message: "User does not exist.", $metadata: {} });
        return { Username: SUB, UserStatus: user.status, UserAttributes: [{ Name: "sub", Value: SUB }] };
      }
      if (command instanceof AdminCreateUserCommand) {
        if (input.MessageAction === "RESEND") return { User: { Attributes: [{ Name: "sub", Value: SUB }] } };
        if (user !== undefined || options.createdMeanwhile === true) {
          user = { status: "FORCE_CHANGE_PASSWORD" };
          throw new UsernameExistsException({ message: "An account with the email already exists.", $metadata: {} });
        }
        user = { status: "FORCE_CHANGE_PASSWORD" };
        return { User: { Attributes: [{ Name: "sub", Value: SUB }] } };
      }
      throw new Error(`unexpected command ${name}`);
    },
  };
  return { directory: new CognitoUserDirectory(POOL, client as unknown as CognitoSender), sent };
}

describe("findUser", () => {
  it("finds a user by email with AdminGetUser, telling whether their first sign-in is pending; sends nothing", async () => {
    const confirmed = fakePool({ status: "CONFIRMED" });
    const pending = fakePool({ status: "FORCE_CHANGE_PASSWORD" });

    expect(await confirmed.directory.findUser("grace@example.com")).toEqual({
      userId: SUB,
      email: "grace@example.com",
      firstSignInPending: false,
    });
    expect(await pending.directory.findUser("grace@example.com")).toMatchObject({ firstSignInPending: true });
    expect(confirmed.sent).toEqual([
      { name: "AdminGetUserCommand", input: { UserPoolId: POOL.userPoolId, Username: "grace@example.com" } },
    ]);
  });

  it("answers undefined for an unknown email", async () => {
    const { directory } = fakePool(undefined);
    expect(await directory.findUser("nobody@example.com")).toBeUndefined();
  });
});

describe("prepareSignIn", () => {
  it("creates a new user with a verified email: Cognito emails them a temporary password", async () => {
    const { directory, sent } = fakePool(undefined);

    const user = await directory.prepareSignIn("grace@example.com");

    expect(user).toEqual({ userId: SUB, email: "grace@example.com", firstSignInPending: true });
    expect(sent.map((command) => command.name)).toEqual(["AdminGetUserCommand", "AdminCreateUserCommand"]);
    expect(sent[1]?.input).toEqual({
      UserPoolId: POOL.userPoolId,
      Username: "grace@example.com",
      UserAttributes: [
        { Name: "email", Value: "grace@example.com" },
        { Name: "email_verified", Value: "true" },
      ],
      DesiredDeliveryMediums: ["EMAIL"],
    });
  });

  it("sends a fresh temporary password (RESEND) to a user who never signed in", async () => {
    const { directory, sent } = fakePool({ status: "FORCE_CHANGE_PASSWORD" });

    await directory.prepareSignIn("grace@example.com");

    expect(sent[1]).toEqual({
      name: "AdminCreateUserCommand",
      input: {
        UserPoolId: POOL.userPoolId,
        Username: "grace@example.com",
        MessageAction: "RESEND",
        DesiredDeliveryMediums: ["EMAIL"],
      },
    });
  });

  it("sends nothing to a user who has signed in before", async () => {
    const { directory, sent } = fakePool({ status: "CONFIRMED" });

    expect(await directory.prepareSignIn("grace@example.com")).toMatchObject({ userId: SUB });
    expect(sent.map((command) => command.name)).toEqual(["AdminGetUserCommand"]);
  });

  it("returns the user another request created a moment ago, without a second email", async () => {
    const { directory, sent } = fakePool(undefined, { createdMeanwhile: true });

    expect(await directory.prepareSignIn("grace@example.com")).toMatchObject({ userId: SUB });
    expect(sent.map((command) => command.name)).toEqual([
      "AdminGetUserCommand",
      "AdminCreateUserCommand",
      "AdminGetUserCommand",
    ]);
  });
});
