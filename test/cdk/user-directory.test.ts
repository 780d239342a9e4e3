import { App, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { CfnUserPool, CfnUserPoolClient, type CfnUserPoolDomain } from "aws-cdk-lib/aws-cognito";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CALLBACK_PATH,
  cognitoDomainPrefix,
  DOMAIN_PREFIX_CONTEXT_KEY,
  signInOrigin,
  UserDirectory,
} from "../../lib/constructs/user-directory.js";

/** The console URL the directory is given (a literal here; the distribution's domain in the stack). */
const CONSOLE_URL = "https://d111111abcdef8.cloudfront.net";

/** A bare stack holding only the user directory: no Lambda function, so no bundling. */
let stack: Stack;
let users: UserDirectory;
let template: Template;

function logicalIdOf(cfn: CfnUserPool | CfnUserPoolClient): string {
  return stack.getLogicalId(cfn);
}

/** A resolved string token as text: `Fn::Join` joined, each `Ref` replaced by `refs[id]` or `{id}`. */
function flatten(value: unknown, refs: Readonly<Record<string, string>>): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && "Ref" in value && typeof value.Ref === "string") {
    return refs[value.Ref] ?? `{${value.Ref}}`;
  }
  if (typeof value === "object" && value !== null && "Fn::Join" in value) {
    const [separator, parts] = value["Fn::Join"] as [string, unknown[]];
    return parts.map((part) => flatten(part, refs)).join(separator);
  }
  throw new Error(`cannot flatten ${JSON.stringify(value)}`);
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
  users = new UserDirectory(stack, "Users", { domainPrefix: "ats-test", consoleUrl: CONSOLE_URL });
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
  it("is the only client: public (no secret), SRP sign-in and refresh, and the OAuth code grant only", () => {
    template.resourceCountIs("AWS::Cognito::UserPoolClient", 1);
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      UserPoolId: { Ref: poolLogicalId() },
      GenerateSecret: false,
      ExplicitAuthFlows: ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ["code"],
      AllowedOAuthScopes: ["openid", "email", "profile"],
      SupportedIdentityProviders: ["COGNITO"],
    });
  });

  it("redirects only to the console's /auth/callback, and to the console's root on sign-out", () => {
    template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      CallbackURLs: [`${CONSOLE_URL}${CALLBACK_PATH}`],
      LogoutURLs: [`${CONSOLE_URL}/`],
    });
    expect(users.callbackUrl).toBe(`${CONSOLE_URL}/auth/callback`);
    expect(users.logoutUrl).toBe(`${CONSOLE_URL}/`);
  });

  it("refuses a console URL that is not https", () => {
    // Prepare
    const probe = new Stack(new App(), "Probe");

    // Act
    const create = () => new UserDirectory(probe, "Users", { domainPrefix: "ats-x", consoleUrl: "http://example.com" });

    // Assess
    expect(create).toThrow(/https/);
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

describe("Cognito domain", () => {
  it("is the pool's one domain, with the given prefix, on Cognito's managed sign-in host", () => {
    template.resourceCountIs("AWS::Cognito::UserPoolDomain", 1);
    template.hasResourceProperties("AWS::Cognito::UserPoolDomain", {
      Domain: "ats-test",
      UserPoolId: { Ref: poolLogicalId() },
    });
  });

  it("gives the same sign-in origin as the one computed from the prefix (the console's CSP uses that one)", () => {
    // Act
    const fromDomain = stack.resolve(users.signInOrigin);
    const computed = stack.resolve(signInOrigin(stack, "ats-test"));

    // Assess: the domain's Ref is its prefix.
    const domainId = stack.getLogicalId(users.domain.node.defaultChild as CfnUserPoolDomain);
    expect(flatten(fromDomain, { [domainId]: "ats-test" })).toBe(
      "https://ats-test.auth.{AWS::Region}.amazoncognito.com",
    );
    expect(flatten(computed, {})).toBe("https://ats-test.auth.{AWS::Region}.amazoncognito.com");
  });

  it("takes the prefix from the cognitoDomainPrefix context when set", () => {
    // Prepare
    const probe = new Stack(new App({ context: { [DOMAIN_PREFIX_CONTEXT_KEY]: "acme-tracking" } }), "Probe");

    // Act
    const prefix = cognitoDomainPrefix(probe);

    // Assess
    expect(prefix).toBe("acme-tracking");
  });

  it.each(["Acme", "-acme", "acme-", "my-aws-tracking", "cognito-x", "a_b", "x".repeat(64)])(
    "refuses the context prefix %j",
    (value) => {
      // Prepare
      const probe = new Stack(new App({ context: { [DOMAIN_PREFIX_CONTEXT_KEY]: value } }), "Probe");

      // Act
      const read = () => cognitoDomainPrefix(probe);

      // Assess
      expect(read).toThrow(/cognitoDomainPrefix/);
    },
  );

  it("defaults to ats-<the stack's UUID>, unique per stack without configuration", () => {
    // Prepare
    const probe = new Stack(new App(), "Probe");

    // Act
    const prefix = probe.resolve(cognitoDomainPrefix(probe));

    // Assess
    expect(prefix).toEqual({
      "Fn::Join": ["-", ["ats", { "Fn::Select": [2, { "Fn::Split": ["/", { Ref: "AWS::StackId" }] }] }]],
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
