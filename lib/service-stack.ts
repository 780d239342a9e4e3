import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { CfnOutput, CustomResource, Duration, Stack, type StackProps, Validations } from "aws-cdk-lib";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import {
  type CfnStage,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import {
  alertDeliveryWorker,
  apiFunctions,
  cursorSecretSetup,
  deletionWorker,
  type ExportAccess,
  exportChangeMarker,
  exportJob,
  monitorEvaluator,
  type PayloadAccess,
  type RouteDefinition,
  routes,
  streamConsumer,
  type WorkerDefinition,
} from "../functions/routes.js";
import { ALERT_DELIVERY_WORKER_TIMEOUT, AlertDeliveryQueue } from "./constructs/alert-delivery-queue.js";
import { ApiFunction, grantTableAccess } from "./constructs/api-function.js";
import { ConsoleDeployment } from "./constructs/console-deployment.js";
import { ConsoleSite } from "./constructs/console-site.js";
import { DeletionQueue } from "./constructs/deletion-queue.js";
import { EdgeProtection } from "./constructs/edge-protection.js";
import { edgeProtectionSettings } from "./constructs/edge-settings.js";
import { ExportBucket } from "./constructs/export-bucket.js";
import { ExportCatalog } from "./constructs/export-catalog.js";
import { ExportChangeStream } from "./constructs/export-change-stream.js";
import { ExportJob } from "./constructs/export-job.js";
import { type ExportSettings, exportSettings } from "./constructs/export-settings.js";
import { MonitorSchedule } from "./constructs/monitor-schedule.js";
import { OperationsDashboard } from "./constructs/operations-dashboard.js";
import { PayloadBucket } from "./constructs/payload-bucket.js";
import { StreamCounting } from "./constructs/stream-counting.js";
import { TrackingTable } from "./constructs/tracking-table.js";
import { cognitoDomainPrefix, signInOrigin, UserDirectory } from "./constructs/user-directory.js";

/** Repository root: the parent of `lib/`. Route entries are relative to it. */
const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/**
 * Context key of a directory holding an already-built console to deploy
 * instead of building `web/` during synthesis (the CDK tests use a small
 * fixture; `cdk synth` and `cdk deploy` leave it unset and build the console).
 */
export const CONSOLE_ASSET_CONTEXT_KEY = "consoleAssetDirectory";

/**
 * Default route throttle of the `$default` stage (steady requests per second
 * and burst, per route): the fallback for a route without its own setting.
 * Every route of the route table has its own (`throttle`, from
 * ROUTE_THROTTLES in functions/routes.ts), set as the stage's route settings.
 * Below the regional account quota (10,000 rps), so one API cannot starve
 * others in the same account.
 */
const DEFAULT_THROTTLE = { rateLimit: 1000, burstLimit: 2000 } as const;

/** Timeout of the stream consumer: a batch of 100 records is a few dozen DynamoDB calls. */
const STREAM_CONSUMER_TIMEOUT = Duration.seconds(60);

/**
 * Timeout of the deletion worker: one erasure job (all of a user's sessions
 * and events) may page through many items. A job is resumable, so a job cut
 * short by the timeout is finished by the retry. The queue's visibility
 * timeout is six times this.
 */
const DELETION_WORKER_TIMEOUT = Duration.minutes(5);

/**
 * One JSON object per request in the stage's access log (HTTP API context
 * variables). Every value is quoted: a variable without a value renders as
 * `-`, which would otherwise break the JSON.
 */
const ACCESS_LOG_FIELDS = {
  requestId: "$context.requestId",
  ip: "$context.identity.sourceIp",
  requestTime: "$context.requestTime",
  routeKey: "$context.routeKey",
  status: "$context.status",
  protocol: "$context.protocol",
  responseLength: "$context.responseLength",
  integrationLatency: "$context.integrationLatency",
  responseLatency: "$context.responseLatency",
  integrationError: "$context.integrationErrorMessage",
} as const;

/**
 * Why a route has no API Gateway authorizer (AwsSolutions-APIG4): each route
 * authenticates in its Lambda function, with the same code that runs locally.
 */
const IN_FUNCTION_AUTH_REASON: Readonly<Record<RouteDefinition["auth"]["kind"], string>> = {
  apiKey:
    "SDK route authenticated in its Lambda function, before any other work: the API key from the Authorization header is hashed (SHA-256) and looked up in the table, revoked or expired keys and keys without the route's scope are rejected with 401/403. API Gateway cannot do this lookup itself (a Lambda authorizer would only move the same code into a second, extra-latency invocation); the route's function holds no permission beyond its own table actions.",
  public:
    "Deliberately public route: it serves the API's OpenAPI description (a static document built into the bundle, the same one the repository publishes) so SDK and client generators can fetch it without a credential, or answers the CORS preflight (OPTIONS) of the end-user feedback route with fixed headers. It reads no data, its function holds no permission beyond writing its own log group, and the stage throttle caps its cost.",
  feedbackToken:
    "End-user feedback route called from browsers, authenticated in its Lambda function: the feedback token (atsf_…) from the Authorization header is verified with HMAC-SHA256 (constant-time compare) under a key derived from the deployment's secret in the table, its expiry checked, and it allows one thing only: a score on the session (and event) it names. API Gateway cannot verify such a token; the function holds no permission beyond the score write and rate-limit windows.",
  user: "Key-management route authenticated in its Lambda function: the caller's Cognito access token is verified with aws-jwt-verify (RS256 signature against the user pool's JWKS, issuer, expiry, token_use = access, client_id = the stack's app client) and the user's role in the organisation is then checked against the table. The function must read the verified claims and the membership anyway; verifying in one place keeps the same code path locally and on AWS.",
  apiKeyOrUser:
    "Read route authenticated in its Lambda function by either credential: an API key (hashed and looked up in the table, scope checked, as on every SDK route) or, for the console, a Cognito access token verified with aws-jwt-verify (RS256 signature against the user pool's JWKS, issuer, expiry, token_use = access, client_id = the stack's app client) whose user's membership and role in the named organisation are then checked against the table. An API Gateway JWT authorizer could not accept the API keys, and both paths must read the table anyway.",
  signedIn:
    "Route for any signed-in user about themselves, authenticated in its Lambda function: the Cognito access token is verified with aws-jwt-verify (RS256 signature against the user pool's JWKS, issuer, expiry, token_use = access, client_id = the stack's app client); it reads only the caller's own memberships. Verifying in the function keeps the same code path locally and on AWS.",
};

/** Properties of {@link AgentTrackingStack}: the export's settings (each else a context value, else its default). */
export interface AgentTrackingStackProps extends StackProps {
  /** The Glue database of the export's tables. @default "ats_export" (context `exportDatabase`) */
  readonly exportDatabaseName?: string;
  /** How often the export runs; `false`: on demand only. @default 1 hour (context `exportScheduleMinutes`, 0: off) */
  readonly exportSchedule?: Duration | false;
  /** Athena's per-query scan limit of the export workgroup, bytes. @default 10 GiB (context `exportBytesScannedCutoffGb`) */
  readonly exportBytesScannedCutoffPerQuery?: number;
  /** Reserved concurrency of the export function; `false`: none. @default 1 (context `exportReservedConcurrency`, 0: none) */
  readonly exportReservedConcurrency?: number | false;
}

/**
 * The Agent Tracking Service: one DynamoDB table, one Cognito user pool for
 * the people who manage API keys, and one HTTP API whose routes are generated
 * from `functions/routes.ts`, each backed by its own Lambda function holding
 * exactly the DynamoDB actions its route declares (none for a route with an
 * empty list). Erasure jobs go through an SQS queue (with a dead-letter
 * queue) to a worker function holding the worker's table actions. Event
 * fields over 32 KiB are offloaded to a private S3 bucket; only the functions
 * whose definition declares `payloadAccess` learn its name and get exactly
 * that access. An OperationsDashboard adds the alarms (to an encrypted SNS
 * topic) and the CloudWatch dashboard. The web console is served from S3
 * through a CloudFront distribution that also forwards `/api/*` to the API
 * (one origin, no CORS), and signs people in with the user pool's managed
 * pages (authorization code + PKCE).
 *
 * Edge protection (opt-in, context `edgeProtection`; docs/deploy.md) puts an
 * AWS WAF web ACL with per-address rate limits in front of the distribution
 * and makes the API answer only requests that came through it (an origin
 * secret checked by a Lambda authorizer on every route); `ApiUrl` is then the
 * distribution's URL.
 */
export class AgentTrackingStack extends Stack {
  /** The single table of the service. */
  readonly table: TrackingTable;
  /** The Cognito user pool, domain and app client of the console and the key-management routes. */
  readonly users: UserDirectory;
  /** The console's bucket and CloudFront distribution (which also serves `/api/*`). */
  readonly consoleSite: ConsoleSite;
  /** The deployment of the built console and its `console-config.json`. */
  readonly consoleDeployment: ConsoleDeployment;
  /** The HTTP API (payload format 2.0). */
  readonly api: HttpApi;
  /** The `$default` stage (auto deploy, throttled, access-logged). */
  readonly stage: HttpStage;
  /** The stage's access log group (retention one month). */
  readonly accessLogGroup: LogGroup;
  /** One function per route, keyed by route id. */
  readonly handlers: ReadonlyMap<string, ApiFunction>;
  /** The queue of erasure jobs and its dead-letter queue. */
  readonly deletionQueue: DeletionQueue;
  /** The function that runs erasure jobs from {@link deletionQueue}. */
  readonly deletionWorker: ApiFunction;
  /** The bucket of offloaded event payloads (fields over 32 KiB). */
  readonly payloads: PayloadBucket;
  /** The function that counts the table's stream into counters, rollups and notifications. */
  readonly streamConsumer: ApiFunction;
  /** The alert monitors' evaluator and the rule that runs it every minute (issue 34). */
  readonly monitorEvaluator: ApiFunction;
  readonly monitorSchedule: MonitorSchedule;
  /** The stream's event source mapping, its failure queue and the notifications bus. */
  readonly streamCounting: StreamCounting;
  /** The export's stream reader (functions/stream/export-change-consumer.ts): marks the units each batch changed. */
  readonly exportChangeMarker: ApiFunction;
  /** The queue of alert deliveries (retries delayed on it) and its dead-letter queue. */
  readonly alertDelivery: AlertDeliveryQueue;
  /** The function that delivers alert notifications from {@link alertDelivery}. */
  readonly alertDeliveryWorker: ApiFunction;
  /** Alarms, their topic and the CloudWatch dashboard. */
  readonly operations: OperationsDashboard;
  /** The custom resource that creates the cursor-signing secret in the table at deployment. */
  readonly cursorSecret: CustomResource;
  /** The function behind {@link cursorSecret} (it may only create that one item). */
  readonly cursorSecretFunction: ApiFunction;
  /** Edge protection's web ACL, origin secret and authorizer; `undefined` unless the deploy setting turns it on. */
  readonly edge: EdgeProtection | undefined;
  /** The export's settings, as resolved from the props, the context and the defaults. */
  readonly exportSettings: ExportSettings;
  /** The bucket of the export's Parquet files and manifests (issue 35). */
  readonly exportBucket: ExportBucket;
  /** The Glue database and tables, the Athena workgroup and its results bucket. */
  readonly exportCatalog: ExportCatalog;
  /** The export function and its schedule. */
  readonly exportJob: ExportJob;

  constructor(scope: Construct, id: string, props?: AgentTrackingStackProps) {
    super(scope, id, props);
    this.exportSettings = exportSettings(this, {
      ...(props?.exportDatabaseName === undefined ? {} : { databaseName: props.exportDatabaseName }),
      ...(props?.exportSchedule === undefined ? {} : { schedule: props.exportSchedule }),
      ...(props?.exportBytesScannedCutoffPerQuery === undefined
        ? {}
        : { bytesScannedCutoffPerQuery: props.exportBytesScannedCutoffPerQuery }),
      ...(props?.exportReservedConcurrency === undefined
        ? {}
        : { reservedConcurrency: props.exportReservedConcurrency }),
    });

    this.table = new TrackingTable(this, "Tracking");
    const table = this.table.table;

    // The default stage is created explicitly: HttpApi's implicit one cannot be throttled.
    this.api = new HttpApi(this, "Api", {
      description: "Agent Tracking Service HTTP API",
      createDefaultStage: false,
    });
    this.accessLogGroup = new LogGroup(this, "AccessLogs", {
      retention: RetentionDays.ONE_MONTH,
    });
    this.stage = new HttpStage(this, "DefaultStage", {
      httpApi: this.api,
      autoDeploy: true,
      throttle: DEFAULT_THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });

    // Checked before anything else is built: a bad setting stops synthesis.
    const edgeLimits = edgeProtectionSettings(this);
    const edge =
      edgeLimits === undefined
        ? undefined
        : new EdgeProtection(this, "Edge", { limits: edgeLimits, routes, projectRoot: repoRoot });
    this.edge = edge;

    // The distribution's CSP names the Cognito domain, and the app client's
    // callback URLs name the distribution: the site comes first, with the
    // sign-in origin computed from the domain prefix.
    const domainPrefix = cognitoDomainPrefix(this);
    this.consoleSite = new ConsoleSite(this, "Console", {
      apiEndpoint: this.api.apiEndpoint,
      signInOrigin: signInOrigin(this, domainPrefix),
      ...(edge === undefined
        ? {}
        : {
            edge: {
              webAclArn: edge.webAclArn,
              originHeader: { name: edge.originHeaderName, value: edge.originHeaderValue },
            },
          }),
    });
    if (edge !== undefined) {
      // The authorizer learns a new secret before CloudFront starts sending it (a replaced secret):
      // the other order would have the authorizer refuse, and cache the refusal.
      this.consoleSite.distribution.node.addDependency(edge.authorizerFunction);
    }
    this.users = new UserDirectory(this, "Users", { domainPrefix, consoleUrl: this.consoleSite.url });
    const userTokenEnvironment = this.users.tokenEnvironment();
    const prebuiltConsole: unknown = this.node.tryGetContext(CONSOLE_ASSET_CONTEXT_KEY);
    this.consoleDeployment = new ConsoleDeployment(this, "ConsoleDeployment", {
      site: this.consoleSite,
      auth: {
        kind: "cognito",
        domain: this.users.signInOrigin,
        clientId: this.users.client.userPoolClientId,
        redirectUri: this.users.callbackUrl,
        logoutUri: this.users.logoutUrl,
      },
      ...(typeof prebuiltConsole === "string" ? { prebuiltDirectory: prebuiltConsole } : {}),
    });

    this.deletionQueue = new DeletionQueue(this, "Deletion", { workerTimeout: DELETION_WORKER_TIMEOUT });
    this.payloads = new PayloadBucket(this, "Payloads");
    this.exportBucket = new ExportBucket(this, "Export");

    // One function per route, or per function group (functions/routes.ts `apiFunctions`), each with one integration.
    const handlers = new Map<string, ApiFunction>();
    const integrations = new Map<string, HttpLambdaIntegration>();
    for (const definition of apiFunctions) {
      const handler = new ApiFunction(this, definition.id, {
        entry: path.join(repoRoot, definition.entry),
        projectRoot: repoRoot,
        description: definition.description,
        environment: {
          // Every handler's bundle reads the table name at cold start, even one
          // that never touches the table; the name alone grants nothing.
          TABLE_NAME: table.tableName,
          // Only the routes that accept a signed-in user's access token learn about the user pool.
          ...(definition.acceptsUserToken ? userTokenEnvironment : {}),
          // Only the routes that enqueue erasure jobs learn about the queue.
          ...(definition.sendsDeletionJobs ? { DELETION_QUEUE_URL: this.deletionQueue.queue.queueUrl } : {}),
          // Only the routes that write, read or delete offloaded event payloads learn about the bucket.
          ...this.payloadEnvironment(definition),
          // Only the routes that read the export (GET /api/exports) learn about its bucket.
          ...this.exportEnvironment(definition),
        },
      });
      this.grantTable(handler, definition);
      this.grantPayloads(handler, definition);
      if (definition.exportAccess === "read") this.exportBucket.grantExportRead(handler.function);
      if (definition.sendsDeletionJobs) {
        this.deletionQueue.grantSendJobs(handler.function);
      }
      // Adding a member creates (invites) or finds the user in the pool; nothing else may.
      if (definition.createsUsers) {
        this.users.userPool.grant(handler.function, "cognito-idp:AdminCreateUser", "cognito-idp:AdminGetUser");
      }
      // A group's routes share the integration, whose one permission lets the API invoke the function from any of
      // its routes (the group's dispatcher serves only the group's route keys).
      const integration = new HttpLambdaIntegration(`${definition.id}Integration`, handler.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        ...(definition.routes.length > 1 ? { scopePermissionToRoute: false } : {}),
      });
      for (const route of definition.routes) {
        handlers.set(route.id, handler);
        integrations.set(route.id, integration);
      }
    }
    for (const route of routes) {
      const definition: RouteDefinition = route;
      const apiRoutes = this.api.addRoutes({
        path: definition.path,
        methods: [HttpMethod[definition.method]],
        integration: integrations.get(definition.id) as HttpLambdaIntegration,
        // With edge protection, only requests that came through the distribution reach the function.
        ...(edge === undefined ? {} : { authorizer: edge.authorizer }),
      });
      for (const apiRoute of apiRoutes) {
        if (edge !== undefined) {
          // Turning edge protection on: the route requires the origin header only once the distribution sends it.
          apiRoute.node.addDependency(this.consoleSite.distribution);
          continue;
        }
        Validations.of(apiRoute).acknowledge({
          id: "AwsSolutions-APIG4",
          reason: IN_FUNCTION_AUTH_REASON[definition.auth.kind],
        });
      }
      // The stage's route settings name the route by its key: it must exist first.
      for (const apiRoute of apiRoutes) this.stage.node.addDependency(apiRoute);
    }
    this.handlers = handlers;
    (this.stage.node.defaultChild as CfnStage).routeSettings = routeThrottleSettings();

    // The cursor-signing secret, created once at deployment (never by a request):
    // the read routes only read it, and the API goes live only once it exists.
    this.cursorSecretFunction = new ApiFunction(this, cursorSecretSetup.id, {
      entry: path.join(repoRoot, cursorSecretSetup.entry),
      projectRoot: repoRoot,
      description: "Creates the cursor-signing secret in the table at deployment (custom resource)",
      environment: { TABLE_NAME: table.tableName },
    });
    this.grantTable(this.cursorSecretFunction, cursorSecretSetup);
    this.cursorSecret = new CustomResource(this, "CursorSecret", {
      serviceToken: this.cursorSecretFunction.function.functionArn,
      resourceType: "Custom::CursorSecret",
      properties: { TableName: table.tableName },
    });
    this.stage.node.addDependency(this.cursorSecret);

    this.deletionWorker = new ApiFunction(this, deletionWorker.id, {
      entry: path.join(repoRoot, deletionWorker.entry),
      projectRoot: repoRoot,
      description: "Runs erasure jobs from the deletion queue",
      timeout: DELETION_WORKER_TIMEOUT,
      environment: { TABLE_NAME: table.tableName, ...this.payloadEnvironment(deletionWorker) },
    });
    this.grantTable(this.deletionWorker, deletionWorker);
    this.grantPayloads(this.deletionWorker, deletionWorker);
    // Grants the worker the consume actions on the queue (receive, delete, change visibility).
    this.deletionWorker.function.addEventSource(
      new SqsEventSource(this.deletionQueue.queue, {
        // One job per invocation: a long job cannot hold other jobs back until it times out.
        batchSize: 1,
        reportBatchItemFailures: true,
      }),
    );

    this.streamConsumer = new ApiFunction(this, streamConsumer.id, {
      entry: path.join(repoRoot, streamConsumer.entry),
      projectRoot: repoRoot,
      description: "Counts the table's stream into session counters, rollups and notifications",
      timeout: STREAM_CONSUMER_TIMEOUT,
      environment: { TABLE_NAME: table.tableName, ...this.payloadEnvironment(streamConsumer) },
    });
    this.grantTable(this.streamConsumer, streamConsumer);
    this.grantPayloads(this.streamConsumer, streamConsumer);
    this.streamCounting = new StreamCounting(this, "StreamCounting", { table, consumer: this.streamConsumer });
    this.exportChangeMarker = new ApiFunction(this, exportChangeMarker.id, {
      entry: path.join(repoRoot, exportChangeMarker.entry),
      projectRoot: repoRoot,
      description: "Marks the Parquet export's units each batch of the table's stream changed",
      timeout: STREAM_CONSUMER_TIMEOUT,
      environment: { TABLE_NAME: table.tableName },
    });
    this.grantTable(this.exportChangeMarker, exportChangeMarker);
    new ExportChangeStream(this, "ExportChangeStream", {
      table,
      marker: this.exportChangeMarker,
      failureQueue: this.streamCounting.failureQueue,
    });

    // Alert deliveries: the worker sends each (a webhook, Slack, or an `ats.monitor` event on the notifications bus),
    // queues the next attempt of a failed one with a delay, and dead-letters one given up after its last attempt.
    this.alertDelivery = new AlertDeliveryQueue(this, "AlertDelivery");
    const alertDeliveryEnvironment = {
      SESSION_EVENTS_BUS: this.streamCounting.bus.eventBusName,
      // The console's links in every notification.
      ATS_CONSOLE_URL: this.consoleSite.url,
    };
    this.alertDeliveryWorker = new ApiFunction(this, alertDeliveryWorker.id, {
      entry: path.join(repoRoot, alertDeliveryWorker.entry),
      projectRoot: repoRoot,
      description: "Delivers alert notifications from the alert delivery queue",
      timeout: ALERT_DELIVERY_WORKER_TIMEOUT,
      environment: {
        TABLE_NAME: table.tableName,
        ...alertDeliveryEnvironment,
        ...this.alertDelivery.senderEnvironment(),
        ALERT_DELIVERY_DLQ_URL: this.alertDelivery.deadLetterQueue.queueUrl,
      },
    });
    this.grantTable(this.alertDeliveryWorker, alertDeliveryWorker);
    this.alertDelivery.grantSendDeliveries(this.alertDeliveryWorker.function);
    this.alertDelivery.grantDeadLetter(this.alertDeliveryWorker.function);
    this.streamCounting.bus.grantPutEventsTo(this.alertDeliveryWorker.function);
    this.alertDeliveryWorker.function.addEventSource(
      new SqsEventSource(this.alertDelivery.queue, { batchSize: 10, reportBatchItemFailures: true }),
    );
    // A route that sends a notification itself (the destination test) may put an `ats.monitor` event on the bus.
    for (const definition of apiFunctions) {
      const handler = handlers.get(definition.routes[0]?.id ?? "");
      if (!definition.sendsAlertNotifications || handler === undefined) continue;
      for (const [name, value] of Object.entries(alertDeliveryEnvironment))
        handler.function.addEnvironment(name, value);
      this.streamCounting.bus.grantPutEventsTo(handler.function);
    }

    this.monitorEvaluator = new ApiFunction(this, monitorEvaluator.id, {
      entry: path.join(repoRoot, monitorEvaluator.entry),
      projectRoot: repoRoot,
      description: "Evaluates the alert monitors (every minute) and hands their notifications to the delivery",
      // A run stops itself at its time budget (45 s), before the next minute's run starts.
      timeout: Duration.seconds(60),
      environment: { TABLE_NAME: table.tableName, ...this.alertDelivery.senderEnvironment() },
    });
    this.grantTable(this.monitorEvaluator, monitorEvaluator);
    // It hands each notification to the delivery queue (functions/alerts/delivery/notify.ts).
    this.alertDelivery.grantSendDeliveries(this.monitorEvaluator.function);
    this.monitorSchedule = new MonitorSchedule(this, "MonitorSchedule", { evaluator: this.monitorEvaluator.function });
    // A route that queues notifications for delivery (a monitor's test) gets the queue and may send to it.
    for (const definition of apiFunctions) {
      const handler = handlers.get(definition.routes[0]?.id ?? "");
      if (!definition.queuesAlertDeliveries || handler === undefined) continue;
      for (const [name, value] of Object.entries(this.alertDelivery.senderEnvironment()))
        handler.function.addEnvironment(name, value);
      this.alertDelivery.grantSendDeliveries(handler.function);
    }

    // The export (issue 35): Parquet in the export bucket, hourly and on demand; Glue tables and an Athena workgroup.
    this.exportCatalog = new ExportCatalog(this, "ExportCatalog", {
      exportBucket: this.exportBucket.bucket,
      databaseName: this.exportSettings.databaseName,
      bytesScannedCutoffPerQuery: this.exportSettings.bytesScannedCutoffPerQuery,
    });
    this.exportJob = new ExportJob(this, "ExportJob", {
      entry: exportJob.entry,
      projectRoot: repoRoot,
      environment: { TABLE_NAME: table.tableName, EXPORT_BUCKET: this.exportBucket.bucket.bucketName },
      schedule: this.exportSettings.schedule,
      reservedConcurrency: this.exportSettings.reservedConcurrency,
    });
    this.grantTable(this.exportJob.handler, exportJob);
    this.exportBucket.grantExportWrite(this.exportJob.handler.function);

    this.operations = new OperationsDashboard(this, "Operations", {
      stage: this.stage,
      table,
      indexNames: this.table.indexNames,
      // The cursor-secret setup runs only during deployments, whose failures CloudFormation reports.
      functions: [
        // A function group's function serves several routes: listed once.
        ...[...new Set(handlers.values())].map((handler) => handler.function),
        this.deletionWorker.function,
        this.streamConsumer.function,
        this.exportChangeMarker.function,
        this.monitorEvaluator.function,
        this.alertDeliveryWorker.function,
        // A failing export leaves the export (and Athena) behind: its errors count like every function's.
        this.exportJob.handler.function,
        // Every API request goes through the origin authorizer (invoked at most once per cache period): its errors fail them all.
        ...(edge === undefined ? [] : [edge.authorizerFunction.function]),
      ],
      deadLetterQueue: this.deletionQueue.deadLetterQueue,
      streamConsumer: { function: this.streamConsumer.function, failureQueue: this.streamCounting.failureQueue },
    });

    new CfnOutput(this, "ConsoleUrl", {
      description: "URL of the web console (CloudFront; /api/* on the same origin reaches the HTTP API)",
      value: this.consoleSite.url,
    });
    new CfnOutput(this, "ApiUrl", {
      description:
        edge === undefined
          ? "Base URL of the HTTP API"
          : "Base URL of the HTTP API: the CloudFront distribution (edge protection is on; the execute-api URL refuses direct calls)",
      // Without a trailing slash, so `<ApiUrl>/api/…` stays under CloudFront's `/api/*` behaviour.
      value: edge === undefined ? this.stage.url : this.consoleSite.url,
    });
    new CfnOutput(this, "TableName", {
      description: "Name of the DynamoDB table",
      value: table.tableName,
    });
    new CfnOutput(this, "UserPoolId", {
      description: "Id of the Cognito user pool of the key-management users",
      value: this.users.userPool.userPoolId,
    });
    new CfnOutput(this, "UserPoolClientId", {
      description: "Id of the public app client (console / CLI) of the user pool",
      value: this.users.client.userPoolClientId,
    });
    new CfnOutput(this, "SessionEventsBusName", {
      description: "EventBridge bus of session.completed / session.failed notifications (source agent-tracking)",
      value: this.streamCounting.bus.eventBusName,
    });
    new CfnOutput(this, "ExportBucketName", {
      description: "Name of the S3 bucket of the export's Parquet files and manifests (docs/export.md)",
      value: this.exportBucket.bucket.bucketName,
    });
    new CfnOutput(this, "ExportGlueDatabase", {
      description: "Glue database of the export's tables (Athena: FROM <database>.sessions …)",
      value: this.exportSettings.databaseName,
    });
    new CfnOutput(this, "ExportAthenaWorkGroup", {
      description:
        "Athena workgroup of the export's queries (engine v3, bytes-scanned cutoff, results expire in 30 days)",
      value: this.exportCatalog.workGroup.ref,
    });
    new CfnOutput(this, "ExportFunctionName", {
      description:
        "The export function: `aws lambda invoke --function-name <name> --payload '{}' out.json` runs it now",
      value: this.exportJob.handler.function.functionName,
    });
    new CfnOutput(this, "PayloadBucketName", {
      description: "Name of the S3 bucket of offloaded event payloads (fields over 32 KiB)",
      value: this.payloads.bucket.bucketName,
    });
  }

  /** `PAYLOAD_BUCKET` for a definition with payload access, nothing otherwise. */
  private payloadEnvironment(definition: { readonly payloadAccess?: PayloadAccess }): Record<string, string> {
    return definition.payloadAccess === undefined ? {} : { PAYLOAD_BUCKET: this.payloads.bucket.bucketName };
  }

  /** `EXPORT_BUCKET` for a route that reads the export, nothing otherwise. */
  private exportEnvironment(definition: { readonly exportAccess?: ExportAccess }): Record<string, string> {
    return definition.exportAccess === undefined ? {} : { EXPORT_BUCKET: this.exportBucket.bucket.bucketName };
  }

  /** Grants a function exactly the payload-bucket access its definition declares. */
  private grantPayloads(handler: ApiFunction, definition: { readonly payloadAccess?: PayloadAccess }): void {
    if (definition.payloadAccess === "write") this.payloads.grantWritePayloads(handler.function);
    if (definition.payloadAccess === "read") this.payloads.grantReadPayloads(handler.function);
    if (definition.payloadAccess === "delete") this.payloads.grantDeletePayloads(handler.function);
  }

  /**
   * Grants `fn` exactly the table grants of its definition: one statement per
   * grant, limited to the grant's partitions (`dynamodb:LeadingKeys`), on the
   * table or on the grant's indexes. A definition without grants gets no
   * table statement at all.
   */
  private grantTable(fn: ApiFunction, definition: RouteDefinition | WorkerDefinition): void {
    for (const grant of definition.tableGrants) {
      grantTableAccess(fn.function, this.table.table, {
        actions: grant.actions,
        leadingKeys: grant.partitions,
        indexNames: grant.indexes ?? [],
        ...(grant.attributes === undefined ? {} : { attributes: grant.attributes }),
      });
    }
  }
}

/**
 * The stage's per-route throttles, from the route table: CloudFormation
 * `RouteSettings`, keyed by route key. The property is untyped JSON, which CDK
 * passes through as is, so the keys are CloudFormation's own (PascalCase).
 */
export function routeThrottleSettings(): Record<
  string,
  { readonly ThrottlingRateLimit: number; readonly ThrottlingBurstLimit: number }
> {
  return Object.fromEntries(
    routes.map((route) => [
      `${route.method} ${route.path}`,
      { ThrottlingRateLimit: route.throttle.rateLimit, ThrottlingBurstLimit: route.throttle.burstLimit },
    ]),
  );
}
