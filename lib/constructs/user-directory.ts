import { Duration, RemovalPolicy, Validations } from "aws-cdk-lib";
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
} from "aws-cdk-lib/aws-cognito";
import { Construct } from "constructs";

/**
 * Lifetime of access (and ID) tokens. The key-management handlers verify the
 * access token in the Lambda, so this bounds how long a stolen token works.
 */
const ACCESS_TOKEN_VALIDITY = Duration.hours(1);
/** Lifetime of refresh tokens: how long a user stays signed in without re-entering the password. */
const REFRESH_TOKEN_VALIDITY = Duration.days(30);

/**
 * The environment variables with which the key-management handlers verify a
 * signed-in user's Cognito access token (aws-jwt-verify, read at first use).
 * `JWT_JWKS_URI` is deliberately absent: it defaults to the issuer's
 * `/.well-known/jwks.json`, which is right for Cognito.
 */
export interface UserTokenEnvironment {
  /** `https://cognito-idp.<region>.amazonaws.com/<userPoolId>`: the tokens' `iss` claim. */
  readonly JWT_ISSUER: string;
  /** The app client id: the access tokens' `client_id` claim. */
  readonly JWT_CLIENT_ID: string;
}

/**
 * The people who may manage API keys: an Amazon Cognito user pool and the one
 * public app client the settings UI / CLI signs in with.
 *
 * - Users are created by administrators only (no self sign-up) and sign in
 *   with their email address (case-insensitive). The pool is retained and
 *   deletion-protected: its users are data.
 * - Passwords: at least 12 characters with upper- and lower-case letters,
 *   digits and symbols; temporary passwords expire after 3 days.
 * - MFA is optional and TOTP only (authenticator apps, no SMS); account
 *   recovery by email only. An email change takes effect only once the new
 *   address is verified.
 * - App client: public (no secret), SRP sign-in plus refresh only, no OAuth
 *   (no hosted UI, no redirect URLs), 1-hour access tokens, 30-day refresh
 *   tokens that sign-out revokes, and no "user does not exist" disclosure.
 *
 * Deliberate findings of the AwsSolutions checks are acknowledged here, next
 * to the settings they are about.
 */
export class UserDirectory extends Construct {
  /** The user pool. */
  readonly userPool: UserPool;
  /** The public app client (settings UI / CLI). */
  readonly client: UserPoolClient;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.userPool = new UserPool(this, "UserPool", {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      keepOriginal: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.client = this.userPool.addClient("SettingsClient", {
      generateSecret: false,
      authFlows: { userSrp: true },
      disableOAuth: true,
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      accessTokenValidity: ACCESS_TOKEN_VALIDITY,
      idTokenValidity: ACCESS_TOKEN_VALIDITY,
      refreshTokenValidity: REFRESH_TOKEN_VALIDITY,
      enableTokenRevocation: true,
    });

    Validations.of(this.userPool).acknowledge(
      {
        id: "AwsSolutions-COG2",
        reason:
          "MFA is OPTIONAL, not REQUIRED, by decision: every user can enrol a TOTP authenticator (the only second factor; SMS is disabled), and the pool enforces a 12-character password with all character classes. Requiring MFA is an operator choice (set mfa to REQUIRED) once every user has an authenticator.",
      },
      {
        id: "AwsSolutions-COG8",
        reason:
          "The pool uses the Essentials feature plan. Threat protection (adaptive authentication, compromised-credential checks) needs the paid Plus plan and is off by default; operators enable it by switching the feature plan to PLUS and setting a threat-protection mode. Users are created by administrators only (no self sign-up) and user-existence errors are suppressed, which limits the exposure in the meantime.",
      },
    );
  }

  /**
   * The environment variables a function needs to verify this pool's access
   * tokens: the pool's issuer URL (from CloudFormation, so the partition's
   * domain is always right) and the app client id.
   */
  tokenEnvironment(): UserTokenEnvironment {
    return {
      JWT_ISSUER: this.userPool.userPoolProviderUrl,
      JWT_CLIENT_ID: this.client.userPoolClientId,
    };
  }
}
