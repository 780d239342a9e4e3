/**
 * The Cognito user pool as the user directory. The pool signs users in by
 * email (an alias of the username), so a user is found with `AdminGetUser` by
 * that email and created with `AdminCreateUser` (email verified: Cognito
 * emails the temporary password to it). A user who never signed in
 * (`FORCE_CHANGE_PASSWORD`: their temporary password lasts 3 days, an
 * invitation 7) gets a fresh one with `AdminCreateUser` `MessageAction: RESEND`.
 * The function needs `cognito-idp:AdminCreateUser` and `cognito-idp:AdminGetUser`
 * on the pool (routes.ts `createsUsers`). The SDK is loaded on first use.
 */
import type { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import type { DirectoryUser, UserDirectory } from "./user-directory.js";

type Attributes = readonly { Name?: string | undefined; Value?: string | undefined }[] | undefined;
type CognitoSdk = typeof import("@aws-sdk/client-cognito-identity-provider");

/** What the directory sends requests through: the SDK client (a test passes a stand-in). */
export type CognitoSender = Pick<CognitoIdentityProviderClient, "send">;

function subOf(attributes: Attributes): string {
  const sub = attributes?.find((attribute) => attribute.Name === "sub")?.Value;
  if (sub === undefined || sub === "") throw new Error("Cognito returned a user without a sub");
  return sub;
}

export class CognitoUserDirectory implements UserDirectory {
  constructor(
    private readonly pool: { readonly region: string; readonly userPoolId: string },
    private client?: CognitoSender,
  ) {}

  private async connect(): Promise<{ sdk: CognitoSdk; client: CognitoSender }> {
    const sdk = await import("@aws-sdk/client-cognito-identity-provider");
    this.client ??= new sdk.CognitoIdentityProviderClient({ region: this.pool.region });
    return { sdk, client: this.client };
  }

  async findUser(email: string): Promise<DirectoryUser | undefined> {
    const { sdk, client } = await this.connect();
    try {
      const user = await client.send(
        new sdk.AdminGetUserCommand({ UserPoolId: this.pool.userPoolId, Username: email }),
      );
      return {
        userId: subOf(user.UserAttributes),
        email,
        firstSignInPending: user.UserStatus === sdk.UserStatusType.FORCE_CHANGE_PASSWORD,
      };
    } catch (error) {
      if (error instanceof sdk.UserNotFoundException) return undefined;
      throw error;
    }
  }

  async prepareSignIn(email: string): Promise<DirectoryUser> {
    const { sdk, client } = await this.connect();
    const invite = (resend: boolean) =>
      new sdk.AdminCreateUserCommand({
        UserPoolId: this.pool.userPoolId,
        Username: email,
        ...(resend
          ? { MessageAction: sdk.MessageActionType.RESEND }
          : {
              UserAttributes: [
                { Name: "email", Value: email },
                { Name: "email_verified", Value: "true" },
              ],
            }),
        DesiredDeliveryMediums: [sdk.DeliveryMediumType.EMAIL],
      });
    const existing = await this.findUser(email);
    if (existing === undefined) {
      try {
        const created = await client.send(invite(false));
        return { userId: subOf(created.User?.Attributes), email, firstSignInPending: true };
      } catch (error) {
        // Created by a concurrent request a moment ago: that request sent the email.
        if (!(error instanceof sdk.UsernameExistsException)) throw error;
        const raced = await this.findUser(email);
        if (raced === undefined)
          throw new Error(`Cognito reported ${email} both existing and missing`, { cause: error });
        return raced;
      }
    }
    if (existing.firstSignInPending) await client.send(invite(true));
    return existing;
  }
}
