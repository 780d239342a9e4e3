import * as path from "node:path";
import { Duration } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { Effect, type IGrantable, PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, Runtime } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";

/**
 * Makes `require` available inside the ESM bundle, for the few CommonJS
 * dependencies that still call it for Node built-ins. Aliased so it cannot
 * clash with identifiers in bundled code.
 */
const ESM_REQUIRE_BANNER =
  'import { createRequire as __atsCreateRequire } from "node:module"; const require = __atsCreateRequire(import.meta.url);';

/**
 * SDK modules not bundled, because the Lambda runtime provides them (AWS SDK
 * for JavaScript v3 is part of every Node.js runtime): the clients a handler
 * imports dynamically on a rare path, the WAF client of the edge-protection
 * custom resource, which runs only during deployments, and the SDK's own
 * event-stream support, which the SDK imports dynamically (HttpProtocol's
 * `loadEventStreamCapability`) for operations with event streams only — none
 * of the bundled clients (DynamoDB, DynamoDB Streams, EventBridge) has one, so
 * esbuild, which inlines a dynamic import, bundled 15 KB that never ran
 * (test/cdk/service-stack.test.ts holds both to it).
 */
const LAZY_RUNTIME_MODULES = [
  "@aws-sdk/client-s3",
  "@aws-sdk/client-sqs",
  "@aws-sdk/s3-request-presigner",
  "@aws-sdk/client-cognito-identity-provider",
  "@aws-sdk/client-wafv2",
  "@smithy/core/event-streams",
];

/** The price table (functions/pricing/price-table.ts reads it beside its module), relative to the project root. */
const PRICE_TABLE_PATH = "functions/pricing/model-prices.json";

function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * esbuild `--alias` values: the SDK's default credential chain → the environment provider only
 * (functions/runtime/lambda-credentials.ts); the endpoint-discovery cache's LRU → a Map-based one
 * (functions/runtime/endpoint-lru-cache.ts).
 */
const BUNDLE_ALIASES = [
  "@aws-sdk/credential-provider-node=./functions/runtime/lambda-credentials.ts",
  "mnemonist/lru-cache=./functions/runtime/endpoint-lru-cache.ts",
];

/** Properties of {@link ApiFunction}. Everything not listed here is a fixed default. */
export interface ApiFunctionProps {
  /** Absolute path of the handler module; it must export `handler`. */
  readonly entry: string;
  /**
   * Absolute path of the repository root: the esbuild working directory and
   * the location of `package-lock.json`. Passed explicitly so synthesis does
   * not depend on the current working directory.
   */
  readonly projectRoot: string;
  /** Environment variables of the function. */
  readonly environment?: Readonly<Record<string, string>>;
  /** Human-readable description, shown in the Lambda console. */
  readonly description?: string;
  /**
   * Chosen by `npm run bench` (bench/results.md, "Lambda memory size"): the
   * smallest size whose vCPU share keeps the event handler within 1.5× its
   * full-vCPU duration; every size costs about the same per event.
   * @default 1024
   */
  readonly memorySize?: number;
  /** @default Duration.seconds(10) */
  readonly timeout?: Duration;
  /**
   * Emit source maps (and enable them with `--enable-source-maps`). Off by
   * default: they grow the bundle and slow down cold starts.
   * @default false
   */
  readonly sourceMap?: boolean;
}

/**
 * A Node.js Lambda function with every default of the service in one place:
 * Node.js 24 on arm64, an ESM bundle built locally by esbuild (minified, AWS
 * DynamoDB client bundled so it is tree-shaken instead of loaded whole from the runtime),
 * and its own log group with a one-month retention.
 *
 * The execution role starts empty: instead of the `AWSLambdaBasicExecutionRole`
 * managed policy (logs actions on `*`), it may only write to its own log group.
 * Table access is added per function with {@link grantTableAccess}.
 *
 * Used for the API's route handlers and for the deletion queue's worker alike.
 */
export class ApiFunction extends Construct {
  /** The bundled Lambda function. */
  readonly function: NodejsFunction;
  /** The function's log group (retention one month). */
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);

    const sourceMap = props.sourceMap ?? false;

    this.logGroup = new LogGroup(this, "LogGroup", {
      retention: RetentionDays.ONE_MONTH,
    });

    const role = new Role(this, "Role", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
    });
    this.logGroup.grantWrite(role);

    this.function = new NodejsFunction(this, "Function", {
      role,
      entry: props.entry,
      handler: "handler",
      projectRoot: props.projectRoot,
      depsLockFilePath: path.join(props.projectRoot, "package-lock.json"),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      logGroup: this.logGroup,
      environment: {
        ...props.environment,
        ...(sourceMap ? { NODE_OPTIONS: "--enable-source-maps" } : {}),
      },
      ...(props.description !== undefined ? { description: props.description } : {}),
      bundling: {
        format: OutputFormat.ESM,
        target: "node24",
        // Prefer the ES module builds of dependencies (the AWS SDK ships both):
        // they tree-shake far better than the CommonJS ones.
        mainFields: ["module", "main"],
        banner: ESM_REQUIRE_BANNER,
        minify: true,
        sourceMap,
        // The DynamoDB client is bundled (pinned, tree-shaken, on every request's
        // path). The S3 and SQS clients, imported only on first use (offloaded
        // payloads, erasure jobs), are left to the runtime's copy of the SDK.
        externalModules: LAZY_RUNTIME_MODULES,
        // Only the environment credential provider (what Lambda uses), not the
        // SDK's whole default chain: see functions/runtime/lambda-credentials.ts;
        // and a small LRU for the endpoint cache: functions/runtime/endpoint-lru-cache.ts.
        esbuildArgs: { "--alias": BUNDLE_ALIASES },
        // The model price table is data read on first use beside index.mjs (functions/pricing/price-table.ts),
        // not 20 KB of every bundle's JavaScript.
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir, outputDir) => [
            `cp ${shellQuoted(path.join(inputDir, PRICE_TABLE_PATH))} ${shellQuoted(path.join(outputDir, path.basename(PRICE_TABLE_PATH)))}`,
          ],
        },
        // Bundle with the local esbuild devDependency (Docker is only a fallback
        // CDK uses when esbuild is not installed; there is no Docker here).
        forceDockerBundling: false,
      },
    });
  }
}

/** One grant of {@link grantTableAccess}: actions on the items of some partitions. */
export interface TableAccessGrant {
  /** Explicit `dynamodb:` actions (no wildcard). */
  readonly actions: readonly string[];
  /**
   * Partition keys the actions are limited to (`dynamodb:LeadingKeys`, IAM
   * `StringLike` patterns such as `SESSION#*`). For a Query on an index the
   * index's partition key is checked. At least one; none may start with `*`
   * (it would match every partition).
   */
  readonly leadingKeys: readonly string[];
  /**
   * Names of the global secondary indexes the grant is for: the statement then
   * names exactly these index ARNs (`${tableArn}/index/<indexName>`, never
   * `index/*`) and not the table. Empty or absent: the table only.
   */
  readonly indexNames?: readonly string[];
  /**
   * Attribute names the requests may use (`dynamodb:Attributes`), with
   * `ReturnValues` limited to NONE, UPDATED_OLD or UPDATED_NEW so an update of
   * one attribute cannot read or rewrite the rest of the item.
   */
  readonly attributes?: readonly string[];
}

/** `ReturnValues` allowed with an attribute restriction: none returns attributes outside the update. */
const RESTRICTED_RETURN_VALUES = ["NONE", "UPDATED_OLD", "UPDATED_NEW"];

/**
 * Grants `grantee` exactly `grant.actions` on `table` (or on the named
 * indexes), and only on the items whose partition key matches one of
 * `grant.leadingKeys`, through one explicit policy statement:
 *
 * - `ForAllValues:StringLike` on `dynamodb:LeadingKeys`: every item of the
 *   request (each item of a batch or a transaction) must be in a listed
 *   partition;
 * - `Null: { dynamodb:LeadingKeys: false }`: a request without leading keys
 *   (which `ForAllValues` alone would let through) never matches;
 * - with `attributes`: `ForAllValues:StringEquals` on `dynamodb:Attributes`
 *   and `StringEqualsIfExists` on `dynamodb:ReturnValues`.
 *
 * Used instead of `grantReadWriteData`, which grants a dozen actions on every
 * item. A function that needs no table access must not call it at all.
 *
 * @throws Error when `actions` is empty, holds a wildcard or a non-DynamoDB
 * action; when `leadingKeys` is empty or a pattern is empty or starts with a
 * wildcard; when an index name is empty or holds a wildcard or a slash.
 */
export function grantTableAccess(
  grantee: IGrantable,
  // Only the ARN is needed; `Pick` also keeps concrete `Table` instances
  // assignable under `exactOptionalPropertyTypes`.
  table: Pick<ITable, "tableArn">,
  grant: TableAccessGrant,
): PolicyStatement {
  if (grant.actions.length === 0) {
    throw new Error("grantTableAccess: at least one action is required");
  }
  for (const action of grant.actions) {
    if (!action.startsWith("dynamodb:") || action.includes("*")) {
      throw new Error(`grantTableAccess: refusing action "${action}" (explicit dynamodb: actions only)`);
    }
  }
  if (grant.leadingKeys.length === 0) {
    throw new Error("grantTableAccess: at least one leading-key pattern is required");
  }
  for (const pattern of grant.leadingKeys) {
    if (pattern === "" || pattern.startsWith("*") || pattern.startsWith("?")) {
      throw new Error(
        `grantTableAccess: refusing leading-key pattern "${pattern}" (it must start with a fixed prefix)`,
      );
    }
  }
  const indexNames = [...new Set(grant.indexNames ?? [])];
  for (const indexName of indexNames) {
    if (!/^[A-Za-z0-9_.-]+$/.test(indexName)) {
      throw new Error(`grantTableAccess: refusing index name "${indexName}" (explicit index names only)`);
    }
  }

  const resources =
    indexNames.length === 0 ? [table.tableArn] : indexNames.map((indexName) => `${table.tableArn}/index/${indexName}`);
  const conditions: Record<string, Record<string, unknown>> = {
    "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [...new Set(grant.leadingKeys)] },
    Null: { "dynamodb:LeadingKeys": "false" },
  };
  if (grant.attributes !== undefined) {
    conditions["ForAllValues:StringEquals"] = { "dynamodb:Attributes": [...new Set(grant.attributes)] };
    conditions.StringEqualsIfExists = { "dynamodb:ReturnValues": RESTRICTED_RETURN_VALUES };
  }

  const statement = new PolicyStatement({
    effect: Effect.ALLOW,
    actions: [...new Set(grant.actions)],
    resources,
    conditions,
  });
  grantee.grantPrincipal.addToPrincipalPolicy(statement);
  return statement;
}
