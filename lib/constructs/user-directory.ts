import { Aws, Duration, Fn, RemovalPolicy, Stack, Token, Validations } from "aws-cdk-lib";
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  OAuthScope,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
} from "aws-cdk-lib/aws-cognito";
import { Construct, type IConstruct } from "constructs";

/**
 * Lifetime of access (and ID) tokens. The key-management handlers verify the
 * access token in the Lambda, so this bounds how long a stolen token works.
 */
const ACCESS_TOKEN_VALIDITY = Duration.hours(1);
/** Lifetime of refresh tokens: how long a user stays signed in without re-entering the password. */
const REFRESH_TOKEN_VALIDITY = Duration.days(30);

/** The context key (`cdk deploy -c cognitoDomainPrefix=…`) naming the Cognito domain prefix. */
export const DOMAIN_PREFIX_CONTEXT_KEY = "cognitoDomainPrefix";

/** Where the console's sign-in ends (the authorization code arrives here), below the console's URL. */
export const CALLBACK_PATH = "/auth/callback";

/**
 * A Cognito domain prefix: lowercase letters, digits and hyphens, 1–63
 * characters, no leading or trailing hyphen, and none of the words Cognito
 * reserves (aws, amazon, cognito).
 */
const DOMAIN_PREFIX_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const RESERVED_PREFIX_WORDS = /aws|amazon|cognito/;

/**
 * The prefix of the Cognito domain (`https://<prefix>.auth.<region>.amazoncognito.com`),
 * which must be unique among all Cognito domains of the region:
 *
 * - the context value `cognitoDomainPrefix` when set (checked here, at synthesis);
 * - otherwise `ats-<the stack's UUID>` (from `AWS::StackId`, resolved by
 *   CloudFormation): unique without any configuration and stable for the
 *   life of the stack, at the price of an unmemorable sign-in host name.
 */
export function cognitoDomainPrefix(scope: IConstruct): string {
  const configured: unknown = scope.node.tryGetContext(DOMAIN_PREFIX_CONTEXT_KEY);
  if (configured === undefined) {
    return Fn.join("-", ["ats", Fn.select(2, Fn.split("/", Aws.STACK_ID))]);
  }
  if (
    typeof configured !== "string" ||
    !DOMAIN_PREFIX_PATTERN.test(configured) ||
    RESERVED_PREFIX_WORDS.test(configured)
  ) {
    throw new Error(
      `Context ${DOMAIN_PREFIX_CONTEXT_KEY} must be 1-63 lowercase letters, digits or hyphens, not starting or ending with a hyphen and without "aws", "amazon" or "cognito"; got ${JSON.stringify(configured)}`,
    );
  }
  return configured;
}

/**
 * `https://<prefix>.auth.<region>.amazoncognito.com`: the origin of the
 * managed sign-in pages of a Cognito domain, computed from the prefix (the
 * same string `UserPoolDomain.baseUrl()` builds), so the console site can
 * name it in its CSP before the directory and its domain exist.
 */
export function signInOrigin(scope: IConstruct, domainPrefix: string): string {
  return `https://${domainPrefix}.auth.${Stack.of(scope).region}.amazoncognito.com`;
}

/** What the user directory needs to know about the console. */
export interface UserDirectoryProps {
  /** The Cognito domain prefix, from {@link cognitoDomainPrefix}. */
  readonly domainPrefix: string;
  /**
   * `https://<console host>` (no trailing slash): the sign-in callback is
   * `<consoleUrl>/auth/callback`, the sign-out URL `<consoleUrl>/`.
   */
  readonly consoleUrl: string;
}

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
 * - A Cognito domain (managed sign-in, classic hosted UI) whose prefix comes
 *   from {@link cognitoDomainPrefix}.
 * - App client: public (no secret), so the console can only use the OAuth
 *   authorization-code grant with PKCE (no implicit grant, no client
 *   credentials), scopes openid/email/profile, redirecting only to the
 *   console's `/auth/callback` and, on sign-out, to the console's root; SRP
 *   sign-in plus refresh stay allowed for the CLI. 1-hour access tokens,
 *   30-day refresh tokens that sign-out revokes, and no "user does not exist"
 *   disclosure. It is the same client (same id) the key-management handlers
 *   verify access tokens for.
 *
 * Deliberate findings of the AwsSolutions checks are acknowledged here, next
 * to the settings they are about.
 */
export class UserDirectory extends Construct {
  /** The user pool. */
  readonly userPool: UserPool;
  /** The public app client (console / CLI). */
  readonly client: UserPoolClient;
  /** The Cognito domain of the managed sign-in pages. */
  readonly domain: UserPoolDomain;
  /** `https://<prefix>.auth.<region>.amazoncognito.com`, resolved from the domain resource. */
  readonly signInOrigin: string;
  /** `<console URL>/auth/callback`: the app client's only callback URL. */
  readonly callbackUrl: string;
  /** `<console URL>/`: the app client's only sign-out URL. */
  readonly logoutUrl: string;

  constructor(scope: Construct, id: string, props: UserDirectoryProps) {
    super(scope, id);
    if (!Token.isUnresolved(props.consoleUrl) && !props.consoleUrl.startsWith("https://")) {
      throw new Error(`consoleUrl must be an https:// URL, got ${props.consoleUrl}`);
    }
    this.callbackUrl = `${props.consoleUrl}${CALLBACK_PATH}`;
    this.logoutUrl = `${props.consoleUrl}/`;

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

    this.domain = this.userPool.addDomain("Domain", { cognitoDomain: { domainPrefix: props.domainPrefix } });
    this.signInOrigin = this.domain.baseUrl();

    this.client = this.userPool.addClient("SettingsClient", {
      generateSecret: false,
      authFlows: { userSrp: true },
      oAuth: {
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: [this.callbackUrl],
        logoutUrls: [this.logoutUrl],
      },
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
