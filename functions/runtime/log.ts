/**
 * The service's one structured logger: one JSON object per line (CloudWatch
 * Logs Insights friendly) with `level`, `message`, `timestamp` (ISO 8601),
 * `service` and, on AWS, `xray_trace_id`, followed by the caller's fields.
 * Keys whose value is `undefined`, `null` or `""` are left out. It prints the
 * line shape of the Powertools Logger it replaced (less its constant
 * `"sampling_rate":0`), so existing Logs Insights queries keep working.
 *
 * On AWS Lambda it writes each line straight to `process.stdout` (DEBUG,
 * INFO) or `process.stderr` (WARN, ERROR): Lambda prefixes what goes through
 * `console.*` with a timestamp, request id and level, which would break the
 * JSON. Anywhere else (`npm start`, the tests) it writes through the global
 * `console`, looked up on every call, so the test suite's console capture
 * (which fails the run when a key or token appears in any log line) sees
 * every line.
 *
 * Read once per execution environment: the level threshold from
 * `AWS_LAMBDA_LOG_LEVEL` (Lambda's advanced logging controls), else
 * `POWERTOOLS_LOG_LEVEL`, else `LOG_LEVEL` (default `INFO`); the service name
 * from `POWERTOOLS_SERVICE_NAME` (default {@link SERVICE_NAME}).
 */
import { SERVICE_NAME } from "../observability/metric-names.js";
import { optionalEnv } from "./env.js";

/** Whether the code runs in AWS Lambda (the runtime always sets the function name). */
export function runningInLambda(): boolean {
  return optionalEnv("AWS_LAMBDA_FUNCTION_NAME") !== undefined;
}

/** Extra top-level keys of a log line. An `Error` anywhere in them is printed as {@link errorObject}. */
export type LogFields = Readonly<Record<string, unknown>>;

/** The shared logger's interface: one method per level, each printing one line (when the level is enabled). */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Severity of each level the logger prints (Powertools' numbers: higher is more severe). */
const SEVERITY = { DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20 } as const;
type LevelName = keyof typeof SEVERITY;

/** The console method of each level (outside Lambda). */
const CONSOLE_METHOD = { DEBUG: "debug", INFO: "info", WARN: "warn", ERROR: "error" } as const;

/** Threshold names accepted from the environment (Powertools' and Lambda's), case-insensitive. */
const THRESHOLDS: ReadonlyMap<string, number> = new Map([
  ["TRACE", 6],
  ...Object.entries(SEVERITY),
  ["CRITICAL", 24],
  ["FATAL", 24],
  ["SILENT", 28],
]);

/** Keys of every line that fields cannot replace. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(["level", "message", "timestamp", "service"]);

/** Properties of an `Error` that {@link errorObject} prints in fixed places. */
const ERROR_KEYS: ReadonlySet<string> = new Set(["name", "message", "stack", "cause"]);

/** A stack frame with a location in parentheses: `at fn (file:line:column)`. */
const STACK_FRAME = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/;

function levelThreshold(): number {
  for (const variable of ["AWS_LAMBDA_LOG_LEVEL", "POWERTOOLS_LOG_LEVEL", "LOG_LEVEL"]) {
    const threshold = THRESHOLDS.get(optionalEnv(variable)?.trim().toUpperCase() ?? "");
    if (threshold !== undefined) return threshold;
  }
  return SEVERITY.INFO;
}

const IN_LAMBDA = runningInLambda();
const THRESHOLD = levelThreshold();
const SERVICE = optionalEnv("POWERTOOLS_SERVICE_NAME") ?? SERVICE_NAME;

/** What the Lambda runtime exposes when one execution environment serves concurrent invocations. */
interface LambdaGlobal {
  readonly awslambda?: { readonly InvokeStore?: { getXRayTraceId(): string | undefined } };
}

/**
 * The current invocation's X-Ray trace id: the `Root` of `_X_AMZN_TRACE_ID`
 * (`Root=1-…;Parent=…;Sampled=…`), or the runtime's per-invocation store
 * when it has one. Undefined outside AWS.
 */
function xrayTraceId(): string | undefined {
  const header =
    (globalThis as LambdaGlobal).awslambda?.InvokeStore?.getXRayTraceId() ?? optionalEnv("_X_AMZN_TRACE_ID");
  if (header === undefined || !header.includes("=")) return header;
  return /(?:^|;)Root=([^;]*)/.exec(header)?.[1];
}

/** `file:line` of the first stack frame with a location, or `""`. */
function codeLocation(stack: string | undefined): string {
  for (const frame of stack?.split("\n") ?? []) {
    const match = STACK_FRAME.exec(frame);
    if (match !== null) return `${match[1]}:${Number(match[2])}`;
  }
  return "";
}

/**
 * An `Error` as a JSON-friendly object: `name`, `location` (`file:line` of
 * its first stack frame), `message`, `stack`, `cause` (recursively for an
 * `Error` cause), then the error's own enumerable properties.
 */
export function errorObject(error: Error): Record<string, unknown> {
  const formatted: Record<string, unknown> = {
    name: error.name,
    location: codeLocation(error.stack),
    message: error.message,
    stack: error.stack,
    cause: error.cause instanceof Error ? errorObject(error.cause) : error.cause,
  };
  for (const [key, value] of Object.entries(error)) {
    if (!ERROR_KEYS.has(key)) formatted[key] = value;
  }
  return formatted;
}

/**
 * `JSON.stringify` replacer for one line: errors become {@link errorObject},
 * bigints strings, and a value that contains itself is cut at the repeat
 * instead of throwing.
 */
function lineReplacer(): (this: unknown, key: string, value: unknown) => unknown {
  const ancestors: unknown[] = [];
  return function replaceLineValue(this: unknown, _key: string, value: unknown): unknown {
    const replaced = value instanceof Error ? errorObject(value) : value;
    if (typeof replaced === "bigint") return replaced.toString();
    if (typeof replaced === "object" && replaced !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(replaced)) return undefined;
      ancestors.push(replaced);
    }
    return replaced;
  };
}

function isPrinted(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

function logLine(level: LevelName, message: string, fields: LogFields): string {
  const entry: Record<string, unknown> = {
    level,
    message,
    timestamp: new Date().toISOString(),
    service: SERVICE,
    xray_trace_id: xrayTraceId(),
  };
  for (const [key, value] of Object.entries(fields)) {
    if (RESERVED_KEYS.has(key)) log("WARN", `The key "${key}" is a reserved key and will be dropped.`);
    else entry[key] = value;
  }
  const line: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (isPrinted(value)) line[key] = value;
  }
  return JSON.stringify(line, lineReplacer());
}

function log(level: LevelName, message: string, fields: LogFields = {}): void {
  if (SEVERITY[level] < THRESHOLD) return;
  const line = logLine(level, message, fields);
  if (IN_LAMBDA) {
    (SEVERITY[level] >= SEVERITY.WARN ? process.stderr : process.stdout).write(`${line}\n`);
  } else {
    console[CONSOLE_METHOD[level]](line);
  }
}

/** The shared logger (configured once per execution environment; see the module comment). */
export const logger: Logger = {
  debug: (message, fields) => log("DEBUG", message, fields),
  info: (message, fields) => log("INFO", message, fields),
  warn: (message, fields) => log("WARN", message, fields),
  error: (message, fields) => log("ERROR", message, fields),
};

/**
 * Logs an error at `ERROR` with `context` as top-level keys and the error as
 * a structured `error` object (`name`, `location`, `message`, `stack`,
 * `cause`; a thrown non-`Error` becomes `{ message }`). Callers must not put
 * credentials or request bodies into `context`.
 */
export function logError(message: string, error: unknown, context: LogFields = {}): void {
  logger.error(message, { ...context, error: error instanceof Error ? error : { message: String(error) } });
}
