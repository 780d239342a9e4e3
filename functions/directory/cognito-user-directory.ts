/**
 * The Cognito user pool as the user directory. The pool signs users in by
 * email (the email is the username), so a new member is `AdminCreateUser`
 * with that email (verified: the invitation goes to it, and Cognito emails a
 * temporary password); an existing user is found with `AdminGetUser`.
 * The function needs `cognito-idp:AdminCreateUser` and `cognito-idp:AdminGetUser`
 * on the pool (routes.ts `createsUsers`). The client is loaded on first use.
 */
import type { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import type { DirectoryUser, UserDirectory } from "./user-directory.js";

type Attributes = readonly { Name?: string | undefined; Value?: string | undefined }[] | undefined;

function subOf(attributes: Attributes): string {
  const sub = attributes?.find((attribute) => attribute.Name === "sub")?.Value;
  if (sub === undefined || sub === "") throw new Error("Cognito returned a user without a sub");
  return sub;
}

export class CognitoUserDirectory implements UserDirectory {
  private client: CognitoIdentityProviderClient | undefined;

  constructor(private readonly pool: { readonly region: string; readonly userPoolId: string }) {}

  async ensureUser(email: string): Promise<DirectoryUser> {
    const sdk = await import("@aws-sdk/client-cognito-identity-provider");
    this.client ??= new sdk.CognitoIdentityProviderClient({ region: this.pool.region });
    try {
      const created = await this.client.send(
        new sdk.AdminCreateUserCommand({
          UserPoolId: this.pool.userPoolId,
          Username: email,
          UserAttributes: [
            { Name: "email", Value: email },
            { Name: "email_verified", Value: "true" },
          ],
          DesiredDeliveryMediums: ["EMAIL"],
        }),
      );
      return { userId: subOf(created.User?.Attributes), email };
    } catch (error) {
      if (!(error instanceof sdk.UsernameExistsException)) throw error;
      const existing = await this.client.send(
        new sdk.AdminGetUserCommand({ UserPoolId: this.pool.userPoolId, Username: email }),
      );
      return { userId: subOf(existing.UserAttributes), email };
    }
  }
}
