import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { AssetHashType, DefaultStackSynthesizer, DockerImage, Stack, Validations } from "aws-cdk-lib";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { CfnBucket } from "aws-cdk-lib/aws-s3";
import { BucketDeployment, type ISource, Source } from "aws-cdk-lib/aws-s3-deployment";
import { Construct } from "constructs";
import type { ConsoleSite } from "./console-site.js";

/** The console's workspace (`web/`), next to `lib/`. */
export const CONSOLE_SOURCE_DIRECTORY = fileURLToPath(new URL("../../web", import.meta.url));

/** The objects every deployment invalidates: the two whose names carry no content hash. */
export const INVALIDATED_PATHS = ["/index.html", "/console-config.json"] as const;

/**
 * `/console-config.json`: how the console signs people in (read by
 * `web/src/auth/config.ts`). Written at deployment, so the tokens (client id,
 * distribution domain, Cognito domain) are resolved by CloudFormation.
 */
export interface ConsoleAuthConfig {
  readonly kind: "cognito";
  /** Origin of the Cognito managed sign-in pages, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly domain: string;
  /** The public app client (authorization code + PKCE). */
  readonly clientId: string;
  /** `https://<distribution domain>/auth/callback`: one of the client's callback URLs. */
  readonly redirectUri: string;
  /** `https://<distribution domain>/`: the client's sign-out URL. */
  readonly logoutUri: string;
}

export interface ConsoleDeploymentProps {
  /** Where to deploy: the site's bucket, and its distribution to invalidate. */
  readonly site: ConsoleSite;
  /** The sign-in settings written to `/console-config.json`. */
  readonly auth: ConsoleAuthConfig;
  /**
   * A directory holding an already-built console (e.g. `web/dist`, or a test
   * fixture) to deploy as is. Without it (the default, and what `npm run
   * synth` / `cdk deploy` do) the console is built from `web/` during
   * synthesis by {@link buildConsole}.
   */
  readonly prebuiltDirectory?: string;
}

/**
 * Builds the console (`vite build` of `web/`) into `outputDir`, synchronously,
 * with the Node.js that runs the synthesis: the CDK's local bundling, so
 * `cdk synth` never needs Docker or the network. Throws with Vite's output if
 * the build fails.
 */
export function buildConsole(outputDir: string, sourceDirectory: string = CONSOLE_SOURCE_DIRECTORY): void {
  const vite = viteCli(sourceDirectory);
  const result = spawnSync(process.execPath, [vite, "build", "--outDir", outputDir, "--emptyOutDir"], {
    cwd: sourceDirectory,
    encoding: "utf8",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (result.status !== 0) {
    throw new Error(
      `The console build (vite build in ${sourceDirectory}) failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}\n${result.stderr}`,
    );
  }
  if (!existsSync(path.join(outputDir, "index.html"))) {
    throw new Error(`The console build wrote no index.html to ${outputDir}`);
  }
}

/** Vite's CLI script, installed in the workspace or hoisted to the repository's node_modules. */
function viteCli(sourceDirectory: string): string {
  for (const base of [sourceDirectory, path.dirname(sourceDirectory)]) {
    const candidate = path.join(base, "node_modules", "vite", "bin", "vite.js");
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`vite is not installed (looked under ${sourceDirectory} and its parent): run npm ci first`);
}

/**
 * The built console as an asset: built locally by {@link buildConsole}. The
 * Docker image is a placeholder CDK requires but never uses, because local
 * bundling always succeeds or throws. The asset hash is the output's, so a
 * deployment happens exactly when the built files change.
 */
function consoleAsset(prebuiltDirectory: string | undefined): ISource {
  if (prebuiltDirectory !== undefined) return Source.asset(prebuiltDirectory);
  return Source.asset(CONSOLE_SOURCE_DIRECTORY, {
    assetHashType: AssetHashType.OUTPUT,
    exclude: ["node_modules", "dist"],
    bundling: {
      image: DockerImage.fromRegistry("public.ecr.aws/docker/library/node:24-alpine"),
      local: {
        tryBundle(outputDir: string): boolean {
          buildConsole(outputDir);
          return true;
        },
      },
    },
  });
}

/** Why the deployment's role holds AWSLambdaBasicExecutionRole (AwsSolutions-IAM4); exported for the tests. */
export const DEPLOYMENT_MANAGED_POLICY_REASON =
  "The BucketDeployment custom resource (aws-cdk-lib) creates its singleton handler's role with the AWS managed policy AWSLambdaBasicExecutionRole and offers no way to replace it. That policy only allows creating log groups/streams and writing log events; the handler runs only during deployments, to copy the console build into the console bucket.";

/** Why the deployment's role policy has wildcards (AwsSolutions-IAM5); exported for the tests. */
export const DEPLOYMENT_WILDCARD_REASON =
  "Generated by the BucketDeployment custom resource (aws-cdk-lib), which runs only during deployments: to copy the console build it reads the CDK asset objects of the bootstrap bucket (s3:GetObject*, s3:GetBucket*, s3:List* on that bucket and its objects), writes the console bucket's objects (s3:PutObject*, s3:DeleteObject*, s3:Abort* on <console bucket>/*, object keys being the build's file names), and creates and reads CloudFront invalidations (cloudfront:CreateInvalidation/GetInvalidation, which support no resource-level permission, hence Resource *). The action lists are aws-cdk-lib's and cannot be narrowed; the buckets are the console bucket and the asset bucket only.";

/** Why the deployment handler's runtime is not the latest (AwsSolutions-L1); exported for the tests. */
export const DEPLOYMENT_RUNTIME_REASON =
  "The BucketDeployment handler (a Python function with the AWS CLI layer) is aws-cdk-lib's own code, and its runtime is chosen and moved forward by aws-cdk-lib, not by this project (a newer runtime than the one its code was tested with is not an option here). It runs only during deployments, with no input but CloudFormation's; upgrading aws-cdk-lib upgrades it.";

/**
 * The granular AwsSolutions findings the BucketDeployment's role causes, one
 * by one (a new wildcard in a future aws-cdk-lib would still fail the checks).
 */
export function deploymentFindings(consoleBucketLogicalId: string): {
  readonly managedPolicy: readonly string[];
  readonly wildcards: readonly string[];
} {
  const assetBucket = `cdk-${DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-<AWS::AccountId>-<AWS::Region>`;
  return {
    managedPolicy: [
      "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
    ],
    wildcards: [
      ...["s3:GetBucket*", "s3:GetObject*", "s3:List*", "s3:Abort*", "s3:DeleteObject*"].map(
        (action) => `AwsSolutions-IAM5[Action::${action}]`,
      ),
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${assetBucket}/*]`,
      `AwsSolutions-IAM5[Resource::<${consoleBucketLogicalId}.Arn>/*]`,
      "AwsSolutions-IAM5[Resource::*]",
    ],
  };
}

/**
 * Deploys the console to its site: the built files plus
 * `/console-config.json` (sign-in settings, resolved at deployment), then
 * invalidates {@link INVALIDATED_PATHS} (hashed assets never need it).
 *
 * Old hashed assets are kept (no pruning), so a browser still holding the
 * previous `index.html` can load its chunks after a deployment.
 */
export class ConsoleDeployment extends Construct {
  readonly deployment: BucketDeployment;

  constructor(scope: Construct, id: string, props: ConsoleDeploymentProps) {
    super(scope, id);

    const logGroup = new LogGroup(this, "Logs", { retention: RetentionDays.ONE_MONTH });
    this.deployment = new BucketDeployment(this, "Files", {
      destinationBucket: props.site.bucket,
      sources: [consoleAsset(props.prebuiltDirectory), Source.jsonData("console-config.json", { auth: props.auth })],
      distribution: props.site.distribution,
      distributionPaths: [...INVALIDATED_PATHS],
      prune: false,
      memoryLimit: 512,
      logGroup,
    });

    // On the singleton handler's role (a child of the stack), whose default policy holds the statements.
    const findings = deploymentFindings(logicalIdOfBucket(props.site));
    Validations.of(this.deployment.handlerRole).acknowledge(
      ...findings.managedPolicy.map((id) => ({ id, reason: DEPLOYMENT_MANAGED_POLICY_REASON })),
      ...findings.wildcards.map((id) => ({ id, reason: DEPLOYMENT_WILDCARD_REASON })),
    );
    // The role's scope is the singleton handler function itself.
    const handler = this.deployment.handlerRole.node.scope;
    if (handler === undefined) throw new Error("the BucketDeployment handler role has no scope");
    Validations.of(handler).acknowledge({ id: "AwsSolutions-L1", reason: DEPLOYMENT_RUNTIME_REASON });
  }
}

function logicalIdOfBucket(site: ConsoleSite): string {
  const cfn = site.bucket.node.defaultChild;
  if (!(cfn instanceof CfnBucket)) throw new Error(`${site.bucket.node.path} has no CfnBucket`);
  return Stack.of(site).getLogicalId(cfn);
}
