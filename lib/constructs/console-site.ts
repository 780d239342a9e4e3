import { Duration, Fn, Validations } from "aws-cdk-lib";
import {
  AllowedMethods,
  CachePolicy,
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { HttpOrigin, S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { privateBucket } from "./private-bucket.js";

/** The path pattern CloudFront sends to the HTTP API; every route of the route table starts with `/api/`. */
export const API_PATH_PATTERN = "/api/*";

/** HSTS max-age: two years, the value the HSTS preload list asks for. */
export const HSTS_MAX_AGE = Duration.days(730);

/**
 * The console's Content-Security-Policy, given the origin of the Cognito
 * managed sign-in pages (`https://<prefix>.auth.<region>.amazoncognito.com`).
 *
 * - Scripts and styles from the console's own origin only: Vite emits one
 *   module script and external CSS files, and `index.html` has no inline
 *   script or style. React's `style={…}` props (Recharts' SVG included) are
 *   set through the CSSOM, which `style-src` does not govern, so no
 *   `'unsafe-inline'` is needed.
 * - `img-src data:` for small inlined images (Vite inlines assets under
 *   4 KiB as data URLs).
 * - `connect-src`: the API on the same origin (`/api/*`, so no CORS) and the
 *   Cognito domain, whose `/oauth2/token` endpoint the console calls to
 *   exchange the authorization code (PKCE) and to refresh tokens.
 * - `form-action`: the Cognito domain as well, for the sign-out redirect.
 * - No framing (`frame-ancestors 'none'`, alongside `X-Frame-Options: DENY`),
 *   no plug-ins, no `<base>` hijacking.
 */
export function consoleContentSecurityPolicy(signInOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${signInOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    `form-action 'self' ${signInOrigin}`,
    "object-src 'none'",
  ].join("; ");
}

/**
 * The viewer-request function of the console's behaviour (CloudFront
 * Functions, `cloudfront-js-2.0`): a path whose last segment has no file
 * extension is a client-side route (`/sessions/…`, `/auth/callback`) and is
 * served `/index.html`; anything with an extension (`/assets/index-….js`,
 * `/console-config.json`) is fetched as is, so a missing asset stays a 403
 * from S3 instead of an HTML page. The `/api/*` behaviour has no function, so
 * the API's own 403/404 JSON reaches the caller untouched — which
 * distribution-wide custom error responses would not allow.
 */
export const SPA_ROUTING_FUNCTION_CODE = `function handler(event) {
  var request = event.request;
  var lastSegment = request.uri.substring(request.uri.lastIndexOf("/") + 1);
  if (lastSegment.indexOf(".") === -1) {
    request.uri = "/index.html";
  }
  return request;
}
`;

/** Why the console bucket has no server access log (AwsSolutions-S1). */
const BUCKET_ACCESS_LOGS_REASON =
  "Server access logging is off by decision: the console bucket holds only the public build of the web console (HTML, JavaScript, CSS and the non-secret console-config.json), readable solely by this stack's CloudFront distribution through origin access control and written solely by the deployment custom resource. Every object is the same for every visitor, so an S3 access log would record nothing but CloudFront's own cache misses; enable CloudFront standard logging or CloudTrail S3 data events if an audit is ever needed.";

/**
 * The reasons for the AwsSolutions CloudFront findings acknowledged on the
 * distribution; exported so tests can check each one is acknowledged with its reason.
 */
export const DISTRIBUTION_REASONS = {
  "AwsSolutions-CFR1":
    "No geo restriction by decision: the console and its API are used by the customer's staff wherever they are, and who may use them is decided by authentication (Cognito sign-in for the console, hashed API keys for the SDK routes), not by country. Operators who must restrict countries can add a geoRestriction to the distribution.",
  "AwsSolutions-CFR2":
    "No AWS WAF web ACL in the default deployment, by decision: a web ACL costs a fixed monthly fee plus a charge per request, and every /api/* request would also pay CloudFront's request price. The API behind /api/* is throttled per route at the API Gateway stage and authenticates every non-public request in its function; the console itself is static. Deploying with -c edgeProtection=true adds a web ACL with per-address rate-based rules (kept in us-east-1 by a custom resource) and makes the API reachable only through this distribution; docs/deploy.md gives its costs.",
  "AwsSolutions-CFR3":
    "CloudFront access logging is off by decision: every /api/* request already lands in the HTTP API stage's JSON access log (request id, source IP, route, status, latencies) and in the function logs, and the console's static files are the same for every visitor. Standard logging would need a log bucket with ACLs enabled and store one line per request for nothing the existing logs lack; operators can enable it (or real-time logs) on the distribution when an audit needs it.",
  "AwsSolutions-CFR4":
    "The distribution uses the default *.cloudfront.net certificate, for which CloudFront fixes the security policy at TLSv1 and the minimum protocol version cannot be raised; only a custom domain with its own ACM certificate allows TLSv1.2_2021. Modern browsers negotiate TLS 1.2 or 1.3 anyway. Operators with a custom domain set domainNames, certificate and minimumProtocolVersion TLS_V1_2_2021.",
} as const;

/** Edge protection's part in the distribution (lib/constructs/edge-protection.ts). */
export interface ConsoleSiteEdgeProps {
  /** ARN of the AWS WAF web ACL (CLOUDFRONT scope) in front of the distribution. */
  readonly webAclArn: string;
  /** The header CloudFront adds to every request it forwards to the API, so the API can refuse any other. */
  readonly originHeader: { readonly name: string; readonly value: string };
}

/** What the console site needs from the rest of the stack. */
export interface ConsoleSiteProps {
  /**
   * `https://<api id>.execute-api.<region>.<suffix>`: the HTTP API that
   * `/api/*` is forwarded to, path unchanged (its `$default` stage serves
   * the routes at their `/api/…` paths).
   */
  readonly apiEndpoint: string;
  /**
   * Origin of the Cognito managed sign-in pages,
   * `https://<prefix>.auth.<region>.amazoncognito.com`: allowed by the CSP as
   * a `connect-src` (token endpoint) and a `form-action`.
   */
  readonly signInOrigin: string;
  /**
   * Edge protection: the distribution is fronted by the web ACL, sends the
   * origin header to the API, and answers over IPv4 only (AWS WAF counts
   * requests per address, and a single IPv6 host may hold a whole /64 of
   * them). Without it: no web ACL, IPv4 and IPv6.
   */
  readonly edge?: ConsoleSiteEdgeProps;
}

/**
 * Hosting of the web console: a private S3 bucket behind a CloudFront
 * distribution that also forwards `/api/*` to the HTTP API, so the console
 * and its API share one origin and need no CORS.
 *
 * - Bucket: all public access blocked, ACLs disabled, SSE-S3, TLS 1.2+ only,
 *   no website hosting. Only the distribution may read it, through Origin
 *   Access Control (a bucket-policy statement for the CloudFront service
 *   principal, conditioned on this distribution's ARN). Retained on stack
 *   deletion like the stack's other buckets (CloudFormation cannot delete a
 *   non-empty bucket); its content is rebuilt by every deployment.
 * - Default behaviour (the console): HTTP redirected to HTTPS, GET/HEAD only,
 *   the managed CachingOptimized policy (Vite's file names carry a content
 *   hash; `index.html` and `console-config.json` are invalidated by each
 *   deployment), and a CloudFront Function for client-side routes.
 * - `/api/*`: HTTPS only (a redirected POST would lose its body), every
 *   method, caching disabled, and every viewer header but `Host` forwarded
 *   with the query string (AllViewerExceptHostHeader: API Gateway needs its
 *   own host name; with caching disabled this policy forwards
 *   `Authorization` too).
 * - With edge protection (`edge`), an AWS WAF web ACL in front of both
 *   behaviours, a secret header on every request to the API, and IPv4 only.
 * - Both behaviours answer with the same security headers: HSTS (2 years,
 *   subdomains), `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`,
 *   `Referrer-Policy: strict-origin-when-cross-origin` and the CSP of
 *   {@link consoleContentSecurityPolicy}.
 */
export class ConsoleSite extends Construct {
  /**
   * The private bucket holding the console build. Typed as `IBucket`: under
   * `exactOptionalPropertyTypes` aws-cdk-lib's `Bucket` class (whose
   * `isWebsite` may be `undefined`) is not assignable to its own `IBucket`.
   */
  readonly bucket: IBucket;
  /** The distribution serving the console and `/api/*`. */
  readonly distribution: Distribution;
  /** The security headers of both behaviours. */
  readonly responseHeadersPolicy: ResponseHeadersPolicy;
  /** The viewer-request function that serves `/index.html` for client-side routes. */
  readonly spaRouting: CloudFrontFunction;
  /** `https://<distribution domain>`: the console's URL (no trailing slash). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);

    const bucket = privateBucket(this, "Bucket", { accessLogsReason: BUCKET_ACCESS_LOGS_REASON });
    this.bucket = bucket as IBucket;

    this.responseHeadersPolicy = new ResponseHeadersPolicy(this, "SecurityHeaders", {
      comment: "Agent Tracking console and API: HSTS, nosniff, no framing, referrer policy, CSP",
      securityHeadersBehavior: {
        strictTransportSecurity: { accessControlMaxAge: HSTS_MAX_AGE, includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
        contentSecurityPolicy: {
          contentSecurityPolicy: consoleContentSecurityPolicy(props.signInOrigin),
          override: true,
        },
      },
    });

    this.spaRouting = new CloudFrontFunction(this, "SpaRouting", {
      comment: "Serves /index.html for the console's client-side routes (paths without a file extension)",
      code: FunctionCode.fromInline(SPA_ROUTING_FUNCTION_CODE),
      runtime: FunctionRuntime.JS_2_0,
    });

    // https://<id>.execute-api.<region>.<suffix> → <id>.execute-api.<region>.<suffix>
    const apiDomain = Fn.select(2, Fn.split("/", props.apiEndpoint));

    const edge = props.edge;
    this.distribution = new Distribution(this, "Distribution", {
      comment: "Agent Tracking Service: web console and /api/*",
      defaultRootObject: "index.html",
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableIpv6: edge === undefined,
      ...(edge === undefined ? {} : { webAclId: edge.webAclArn }),
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        compress: true,
        responseHeadersPolicy: this.responseHeadersPolicy,
        functionAssociations: [{ function: this.spaRouting, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        [API_PATH_PATTERN]: {
          origin: new HttpOrigin(apiDomain, {
            protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
            originSslProtocols: [OriginSslPolicy.TLS_V1_2],
            ...(edge === undefined ? {} : { customHeaders: { [edge.originHeader.name]: edge.originHeader.value } }),
          }),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          compress: true,
          responseHeadersPolicy: this.responseHeadersPolicy,
        },
      },
    });
    for (const [ruleId, reason] of Object.entries(DISTRIBUTION_REASONS)) {
      // With edge protection the distribution has its web ACL: nothing to acknowledge.
      if (ruleId === "AwsSolutions-CFR2" && edge !== undefined) continue;
      Validations.of(this.distribution).acknowledge({ id: ruleId, reason });
    }

    this.url = `https://${this.distribution.distributionDomainName}`;
  }
}
