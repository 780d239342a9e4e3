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
 * SDK clients a handler imports dynamically on a rare path; not bundled, the
 * Lambda runtime provides them (AWS SDK for JavaScript v3 is part of every
 * Node.js runtime).
 */
const LAZY_RUNTIME_MODULES = ["@aws-sdk/client-s3", "@aws-sdk/client-sqs"];

/** esbuild `--alias` value: the SDK's default credential chain → the environment provider only. */
const CREDENTIALS_ALIAS = "@aws-sdk/credential-provider-node=./functions/runtime/lambda-credentials.ts";

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
 * Table access is added per function with {@link grantTableActions}.
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
        // SDK's whole default chain: see functions/runtime/lambda-credentials.ts.
        esbuildArgs: { "--alias": CREDENTIALS_ALIAS },
        // Bundle with the local esbuild devDependency (Docker is only a fallback
        // CDK uses when esbuild is not installed; there is no Docker here).
        forceDockerBundling: false,
      },
    });
  }
}

/** Options of {@link grantTableActions}. */
export interface TableGrantOptions {
  /**
   * Names of the global secondary indexes the grantee queries: the actions
   * are also granted on exactly these index ARNs
   * (`${tableArn}/index/<indexName>`). Empty: the table only.
   */
  readonly indexNames: readonly string[];
}

/**
 * Grants `grantee` exactly `actions` on `table` (and on the ARN of each index
 * named in `options.indexNames`, never `index/*`), through one explicit
 * policy statement.
 *
 * Used instead of `grantReadWriteData`, which grants a dozen actions (Scan,
 * BatchWriteItem, DeleteItem, …) a handler does not need. A function that
 * needs no table access (an empty action list) must not call it at all.
 *
 * @throws Error when `actions` is empty, holds a wildcard or a non-DynamoDB
 * action, or when an index name is empty or holds a wildcard or a slash.
 */
export function grantTableActions(
  grantee: IGrantable,
  // Only the ARN is needed; `Pick` also keeps concrete `Table` instances
  // assignable under `exactOptionalPropertyTypes`.
  table: Pick<ITable, "tableArn">,
  actions: readonly string[],
  options: TableGrantOptions,
): PolicyStatement {
  if (actions.length === 0) {
    throw new Error("grantTableActions: at least one action is required");
  }
  for (const action of actions) {
    if (!action.startsWith("dynamodb:") || action.includes("*")) {
      throw new Error(`grantTableActions: refusing action "${action}" (explicit dynamodb: actions only)`);
    }
  }
  for (const indexName of options.indexNames) {
    if (!/^[A-Za-z0-9_.-]+$/.test(indexName)) {
      throw new Error(`grantTableActions: refusing index name "${indexName}" (explicit index names only)`);
    }
  }

  const resources = [
    table.tableArn,
    ...[...new Set(options.indexNames)].map((indexName) => `${table.tableArn}/index/${indexName}`),
  ];

  const statement = new PolicyStatement({
    effect: Effect.ALLOW,
    actions: [...new Set(actions)],
    resources,
  });
  grantee.grantPrincipal.addToPrincipalPolicy(statement);
  return statement;
}
