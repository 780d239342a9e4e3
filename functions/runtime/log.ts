/**
 * The service's one structured logger: Powertools Logger, one JSON object per
 * line (CloudWatch Logs Insights friendly), with `level`, `message`,
 * `timestamp`, `service` and, on AWS, the X-Ray trace id.
 *
 * On AWS Lambda it writes exactly as Powertools does (its own console on
 * stdout/stderr). Anywhere else (`npm start`, the tests) it writes the same
 * compact line through the global `console`, so local output stays one line
 * per entry and the test suite's console capture (which fails the run when a
 * key or token appears in any log line) sees every line.
 */
import { Logger, type LogItem, LogLevelThreshold } from "@aws-lambda-powertools/logger";
import { SERVICE_NAME } from "../observability/metric-names.js";
import { optionalEnv } from "./env.js";

/** Whether the code runs in AWS Lambda (the runtime always sets the function name). */
export function runningInLambda(): boolean {
  return optionalEnv("AWS_LAMBDA_FUNCTION_NAME") !== undefined;
}

const IN_LAMBDA = runningInLambda();

/** Powertools Logger that prints through the global console outside Lambda. */
class ServiceLogger extends Logger {
  protected override printLog(logLevel: number, log: LogItem): void {
    if (IN_LAMBDA) {
      super.printLog(logLevel, log);
      return;
    }
    log.prepareForPrint();
    const line = JSON.stringify(log.getAttributes(), this.getJsonReplacer());
    if (logLevel >= LogLevelThreshold.ERROR) console.error(line);
    else if (logLevel >= LogLevelThreshold.WARN) console.warn(line);
    else if (logLevel >= LogLevelThreshold.INFO) console.info(line);
    else console.debug(line);
  }
}

/**
 * The shared logger (created once per execution environment). Level from
 * `POWERTOOLS_LOG_LEVEL` (default `INFO`); service name from
 * `POWERTOOLS_SERVICE_NAME` (default {@link SERVICE_NAME}).
 */
export const logger: Logger = new ServiceLogger({
  serviceName: optionalEnv("POWERTOOLS_SERVICE_NAME") ?? SERVICE_NAME,
});

/**
 * Logs an error at `ERROR` with `context` as top-level keys and the error as
 * Powertools' structured `error` object (`name`, `message`, `stack`,
 * `location`, `cause`). Callers must not put credentials or request bodies
 * into `context`.
 */
export function logError(message: string, error: unknown, context: Record<string, unknown> = {}): void {
  const entry = { ...context, message };
  if (error instanceof Error) logger.error(entry, error);
  else logger.error(entry, { error: { message: String(error) } });
}
