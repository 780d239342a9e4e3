import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import { HttpApi, HttpMethod, HttpStage, PayloadFormatVersion } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import type { Construct } from "constructs";
import { routes } from "../functions/routes.js";
import { ApiFunction, grantTableActions } from "./constructs/api-function.js";
import { TrackingTable } from "./constructs/tracking-table.js";

/** Repository root: the parent of `lib/`. Route entries are relative to it. */
const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/**
 * Default route throttle of the `$default` stage (steady requests per second
 * and burst, applied to every route): the account-level safety net that caps
 * what a runaway client can cost. Below the regional account quota
 * (10,000 rps), so one API cannot starve others in the same account.
 */
const DEFAULT_THROTTLE = { rateLimit: 1000, burstLimit: 2000 } as const;

/**
 * The Agent Tracking Service: one DynamoDB table and one HTTP API whose routes
 * are generated from `functions/routes.ts`, each backed by its own Lambda
 * function holding exactly the DynamoDB actions its route declares.
 */
export class AgentTrackingStack extends Stack {
  /** The single table of the service. */
  readonly table: TrackingTable;
  /** The HTTP API (payload format 2.0). */
  readonly api: HttpApi;
  /** The `$default` stage (auto deploy, throttled). */
  readonly stage: HttpStage;
  /** One function per route, keyed by route id. */
  readonly handlers: ReadonlyMap<string, ApiFunction>;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    this.table = new TrackingTable(this, "Tracking");
    const table = this.table.table;

    // The default stage is created explicitly: HttpApi's implicit one cannot be throttled.
    this.api = new HttpApi(this, "Api", {
      description: "Agent Tracking Service HTTP API",
      createDefaultStage: false,
    });
    this.stage = new HttpStage(this, "DefaultStage", {
      httpApi: this.api,
      autoDeploy: true,
      throttle: DEFAULT_THROTTLE,
    });

    const handlers = new Map<string, ApiFunction>();
    for (const route of routes) {
      const handler = new ApiFunction(this, route.id, {
        entry: path.join(repoRoot, route.entry),
        projectRoot: repoRoot,
        description: `${route.method} ${route.path}`,
        environment: { TABLE_NAME: table.tableName },
      });
      grantTableActions(handler.function, table, route.tableActions, {
        includeIndexes: route.queriesIndexes,
      });

      this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${route.id}Integration`, handler.function, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        }),
      });
      handlers.set(route.id, handler);
    }
    this.handlers = handlers;

    new CfnOutput(this, "ApiUrl", {
      description: "Base URL of the HTTP API",
      value: this.stage.url,
    });
    new CfnOutput(this, "TableName", {
      description: "Name of the DynamoDB table",
      value: table.tableName,
    });
  }
}
