/**
 * Lambda packaging: every function bundled as the CDK stack bundles it
 * (lib/constructs/api-function.ts → NodejsFunction → `esbuild --bundle
 * --target=node24 --platform=node --format=esm --minify --main-fields=module,main
 * --banner:js=<createRequire banner> --alias:<credential provider alias>
 * --external:<lazily imported SDK clients>`, run from the repository root), and the cold init of each bundle: a fresh `node` process
 * importing it, next to one importing a bundle that only constructs a
 * DynamoDB document client.
 *
 * The bundling options are read from lib/constructs/api-function.ts (the
 * banner, the alias and the external modules verbatim; the rest asserted), so a change there cannot silently
 * leave this bench measuring something else.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build, version as esbuildVersion } from "esbuild";
import {
  acceptsUserToken,
  deletionWorker,
  type FunctionGroupId,
  functionGroups,
  type RouteDefinition,
  routes,
  streamConsumer,
} from "../../functions/routes.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { median } from "./stats.js";

const CONSTRUCT_FILE = join(REPOSITORY_ROOT, "lib", "constructs", "api-function.ts");

export interface BundleSettings {
  readonly banner: string;
  /** esbuild aliases, import path → replacement (relative to the repository root). */
  readonly alias: Readonly<Record<string, string>>;
  /** Modules left out of the bundle (loaded from the Lambda runtime on first use). */
  readonly external: readonly string[];
  readonly target: string;
  readonly memorySizeMb: number;
}

/** The bundling settings and default memory size of lib/constructs/api-function.ts (throws when they drifted). */
export function readBundleSettings(): BundleSettings {
  const source = readFileSync(CONSTRUCT_FILE, "utf8");
  const banner = /const ESM_REQUIRE_BANNER =\s*'([^']+)';/.exec(source)?.[1];
  if (banner === undefined) throw new Error(`ESM_REQUIRE_BANNER not found in ${CONSTRUCT_FILE}`);
  const expected = [
    "format: OutputFormat.ESM",
    'target: "node24"',
    'mainFields: ["module", "main"]',
    "banner: ESM_REQUIRE_BANNER",
    "minify: true",
    "externalModules: LAZY_RUNTIME_MODULES",
    'esbuildArgs: { "--alias": BUNDLE_ALIASES }',
    "runtime: Runtime.NODEJS_24_X",
    "architecture: Architecture.ARM_64",
  ];
  const missing = expected.filter((fragment) => !source.includes(fragment));
  if (missing.length > 0)
    throw new Error(`lib/constructs/api-function.ts changed; update bench/harness/packaging.ts: ${missing.join("; ")}`);
  const aliasList = /const BUNDLE_ALIASES = \[([^\]]*)\];/.exec(source)?.[1];
  if (aliasList === undefined) throw new Error(`BUNDLE_ALIASES not found in ${CONSTRUCT_FILE}`);
  const alias = Object.fromEntries(
    [...aliasList.matchAll(/"([^"=]+)=([^"]+)"/g)].map((match) => [match[1] ?? "", match[2] ?? ""]),
  );
  if (Object.keys(alias).length === 0) throw new Error(`BUNDLE_ALIASES in ${CONSTRUCT_FILE} lists no alias`);
  const externalList = /const LAZY_RUNTIME_MODULES = \[([^\]]*)\];/.exec(source)?.[1];
  if (externalList === undefined) throw new Error(`LAZY_RUNTIME_MODULES not found in ${CONSTRUCT_FILE}`);
  const external = [...externalList.matchAll(/"([^"]+)"/g)].map((match) => match[1] ?? "");
  const memory = /memorySize: props\.memorySize \?\? (\d+)/.exec(source)?.[1];
  if (memory === undefined) throw new Error("default memorySize not found in lib/constructs/api-function.ts");
  return {
    banner,
    alias,
    external,
    target: "node24",
    memorySizeMb: Number(memory),
  };
}

export interface BundleTarget {
  readonly id: string;
  readonly entry: string;
  /** Environment the function gets from lib/service-stack.ts (values are placeholders). */
  readonly environment: Readonly<Record<string, string>>;
  readonly baseline: boolean;
}

const LAMBDA_ENVIRONMENT = {
  AWS_REGION: "us-east-1",
  AWS_DEFAULT_REGION: "us-east-1",
  AWS_EXECUTION_ENV: "AWS_Lambda_nodejs24.x",
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "1024",
  TABLE_NAME: "ats-bench-table",
};

function routeEnvironment(route: RouteDefinition): Record<string, string> {
  return {
    ...(acceptsUserToken(route.auth)
      ? { JWT_ISSUER: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_bench", JWT_CLIENT_ID: "benchclient" }
      : {}),
    ...(route.sendsDeletionJobs === true
      ? { DELETION_QUEUE_URL: "https://sqs.us-east-1.amazonaws.com/000000000000/ats-bench-deletions" }
      : {}),
    ...(route.payloadAccess === undefined ? {} : { PAYLOAD_BUCKET: "ats-bench-payloads" }),
  };
}

/**
 * Every function of the stack (each route of its own, each function group with what its routes need, the deletion
 * worker, the stream consumer) and the bare-client baseline.
 */
export function bundleTargets(): BundleTarget[] {
  const groups = Object.keys(functionGroups) as FunctionGroupId[];
  return [
    ...routes
      .filter((route) => route.functionGroup === undefined)
      .map((route) => ({
        id: route.id,
        entry: route.entry,
        environment: { ...LAMBDA_ENVIRONMENT, AWS_LAMBDA_FUNCTION_NAME: route.id, ...routeEnvironment(route) },
        baseline: false,
      })),
    ...groups.map((group) => ({
      id: group,
      entry: functionGroups[group].entry,
      environment: {
        ...LAMBDA_ENVIRONMENT,
        AWS_LAMBDA_FUNCTION_NAME: group,
        ...Object.assign({}, ...routes.filter((route) => route.functionGroup === group).map(routeEnvironment)),
      },
      baseline: false,
    })),
    {
      id: deletionWorker.id,
      entry: deletionWorker.entry,
      environment: {
        ...LAMBDA_ENVIRONMENT,
        AWS_LAMBDA_FUNCTION_NAME: deletionWorker.id,
        ...(deletionWorker.payloadAccess === undefined ? {} : { PAYLOAD_BUCKET: "ats-bench-payloads" }),
      },
      baseline: false,
    },
    {
      id: streamConsumer.id,
      entry: streamConsumer.entry,
      environment: {
        ...LAMBDA_ENVIRONMENT,
        AWS_LAMBDA_FUNCTION_NAME: streamConsumer.id,
        SESSION_EVENTS_BUS: "ats-bench-session-events",
        ...(streamConsumer.payloadAccess === undefined ? {} : { PAYLOAD_BUCKET: "ats-bench-payloads" }),
      },
      baseline: false,
    },
    {
      id: "BareDocumentClient",
      entry: "bench/fixtures/bare-client.ts",
      environment: { ...LAMBDA_ENVIRONMENT, AWS_LAMBDA_FUNCTION_NAME: "BareDocumentClient" },
      baseline: true,
    },
  ];
}

export interface ColdInit {
  /** `await import(bundle)` inside the fresh process (module load, evaluation, client construction). */
  readonly importMs: number;
  /** From the process's time origin to the handler being ready (Node bootstrap + the import). */
  readonly processToReadyMs: number;
  /** spawn → exit, measured by the parent. */
  readonly wallMs: number;
}

export interface BundleResult {
  readonly id: string;
  readonly entry: string;
  readonly baseline: boolean;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly runs: number;
  /** Medians over the runs. */
  readonly coldInit: ColdInit;
  readonly samples: readonly ColdInit[];
}

/** Runs in the fresh process: imports the bundle given as argv[1], checks it exports a handler, reports timings. */
const PROBE = [
  "const started = performance.now();",
  "const module = await import(process.argv[1]);",
  "const ready = performance.now();",
  'if (typeof module.handler !== "function") { console.error("no handler export"); process.exit(3); }',
  "process.stdout.write(JSON.stringify({ importMs: ready - started, processToReadyMs: ready }));",
].join("\n");

function probe(bundle: string, environment: Readonly<Record<string, string>>): Promise<ColdInit> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--input-type=module", "-e", PROBE, bundle], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? "", ...environment },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      if (code !== 0) {
        reject(new Error(`cold init of ${bundle} exited with ${code}: ${stderr.slice(0, 500)}`));
        return;
      }
      const reported = JSON.parse(stdout) as { importMs: number; processToReadyMs: number };
      resolve({ ...reported, wallMs });
    });
  });
}

export async function measurePackaging(options: {
  readonly coldRuns: number;
  readonly log: (line: string) => void;
}): Promise<{ settings: BundleSettings; bundles: BundleResult[]; esbuildVersion: string }> {
  const settings = readBundleSettings();
  const directory = mkdtempSync(join(tmpdir(), "ats-bench-bundles-"));
  try {
    const targets = bundleTargets();
    const built = await Promise.all(
      targets.map(async (target) => {
        const outfile = join(directory, target.id, "index.mjs");
        await build({
          entryPoints: [join(REPOSITORY_ROOT, target.entry)],
          absWorkingDir: REPOSITORY_ROOT,
          bundle: true,
          platform: "node",
          format: "esm",
          target: settings.target,
          outfile,
          minify: true,
          mainFields: ["module", "main"],
          banner: { js: settings.banner },
          alias: settings.alias,
          external: [...settings.external],
          logLevel: "error",
        });
        return { target, outfile };
      }),
    );
    options.log(`  bundled ${built.length} functions with esbuild ${esbuildVersion}`);
    // Rounds across all bundles (one unmeasured round first, to warm the page cache), so drift over
    // the phase (CPU frequency, background work) affects every bundle and the baseline alike.
    const samples = new Map<string, ColdInit[]>(built.map(({ target }) => [target.id, []]));
    for (let round = -1; round < options.coldRuns; round++) {
      for (const { target, outfile } of built) {
        const sample = await probe(outfile, target.environment);
        if (round >= 0) samples.get(target.id)?.push(sample);
      }
    }
    const bundles: BundleResult[] = built.map(({ target, outfile }) => {
      const runs = samples.get(target.id) ?? [];
      const content = readFileSync(outfile);
      return {
        id: target.id,
        entry: target.entry,
        baseline: target.baseline,
        bytes: statSync(outfile).size,
        gzipBytes: gzipSync(content).length,
        runs: runs.length,
        coldInit: {
          importMs: median(runs.map((sample) => sample.importMs)),
          processToReadyMs: median(runs.map((sample) => sample.processToReadyMs)),
          wallMs: median(runs.map((sample) => sample.wallMs)),
        },
        samples: runs,
      };
    });
    return { settings, bundles, esbuildVersion };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
