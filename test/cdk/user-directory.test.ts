import { App, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { CfnUserPool, CfnUserPoolClient } from "aws-cdk-lib/aws-cognito";
import { beforeAll, describe, expect, it } from "vitest";
import { UserDirectory } from "../../lib/constructs/user-directory.js";

/** A bare stack holding only the user directory: no Lambda function, so no bundling. */
let stack: Stack;
let users: UserDirectory;
let template: Template;

function logicalIdOf(cfn: CfnUserPool | CfnUserPoolClient): string {
  return stack.getLogicalId(cfn);
}

function poolLogicalId(): string {
  const child = users.userPool.node.defaultChild;
  if (!(child instanceof CfnUserPool)) throw new Error("user pool has no CfnUserPool");
  return logicalIdOf(child);
}

function clientLogicalId(): string {
  const child = users.client.node.defaultChild;
  if (!(child instanceof CfnUserPoolClient)) throw new Error("app client has no CfnUserPoolClient");
  return logicalIdOf(child);
}

beforeAll(() => {
  // Prepare
  stack = new Stack(new App(), "Users");

  // Act: the one synthesis of this file.
  users = new UserDirectory(stack, "Users");
  template = Template.fromStack(stack);
});

describe("user pool", () => {
  it("is the only pool, retained and deletion-protected (users are data)", () => {
    template.resourceCountIs("AWS::Cognito::UserPool", 1);
    template.hasResource("AWS::Cognito::UserPool", {
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: Match.objectLike({ DeletionProtection: "ACTIVE", UserPoolName: Match.absent() }),
    });
  });

  it("lets only administrators create users, who sign in with their email address", () => {
    template.hasResourceProperties("AWS::Cognito::UserPool", {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ["email"],
      UsernameConfiguration: { CaseSensitive: false },
      AutoVerifiedAttributes: ["email"],
      UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ["email"] },
      Schema: [{ Name: "email", Required: true, Mutable: true }],
    });
  });

  it("requires strong passwords and expires temporary ones after 3 days", () => {
    template.hasResourceProperties("AWS::Cognito::UserPool", {
      Policies: {
        PasswordPolicy: {
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
          TemporaryPasswordValidityDays: 3,
        },
      },
    });
  });

  it("offers optional MFA with authenticator apps (TOTP) only, never SMS", () => {
    // Act
    const [pool] = Object.values(template.findResources("AWS::Cognito::UserPool"));

    // Assess
    expect(pool?.Properties).toMatchObject({ MfaConfiguration: "OPTIONAL", EnabledMfas: ["SOFTWARE_TOKEN_MFA"] });
    expect(pool?.Properties).not.toHaveProperty("SmsConfiguration");
    template.resourceCountIs("AWS::IAM::Role", 0);
  });

  it("recovers accounts by verified email only", () => {
    template.hasResourceProperties("AWS::Cognito::UserPool", {
      AccountRecoverySetting: { RecoveryMechanisms: [{ Name: "verified_email", Priority: 1 }] },
    });
  });
});

describe("app client", () => {
  it("is the only client: public (no secret), SRP sign-in and refresh only, no OAuth", () => {
    template.resourceCountIs("AWS::Cognito::UserPoolClient", 1);
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      UserPoolId: { Ref: poolLogicalId() },
      GenerateSecret: false,
      ExplicitAuthFlows: ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
      AllowedOAuthFlowsUserPoolClient: false,
      AllowedOAuthFlows: Match.absent(),
      CallbackURLs: Match.absent(),
      SupportedIdentityProviders: ["COGNITO"],
    });
  });

  it("does not disclose whether a user exists", () => {
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", { PreventUserExistenceErrors: "ENABLED" });
  });

  it("issues 1-hour access tokens and 30-day refresh tokens that sign-out revokes", () => {
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      AccessTokenValidity: 60,
      IdTokenValidity: 60,
      RefreshTokenValidity: 30 * 24 * 60,
      TokenValidityUnits: { AccessToken: "minutes", IdToken: "minutes", RefreshToken: "minutes" },
      EnableTokenRevocation: true,
    });
  });
});

describe("tokenEnvironment", () => {
  it("gives the pool's issuer URL and the client id, and no JWKS override", () => {
    // Act
    const environment = stack.resolve(users.tokenEnvironment());

    // Assess
    expect(environment).toEqual({
      JWT_ISSUER: { "Fn::GetAtt": [poolLogicalId(), "ProviderURL"] },
      JWT_CLIENT_ID: { Ref: clientLogicalId() },
    });
  });
});
