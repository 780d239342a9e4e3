/**
 * The structured logger (functions/runtime/log.ts): the JSON line shape, the
 * `error` object, the level threshold from the environment, and where lines
 * go (the console outside Lambda, stdout/stderr on Lambda). The module reads
 * its environment once at load, so each test imports a fresh copy.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

type LogModule = typeof import("../../functions/runtime/log.js");

/** A fresh copy of the logger module, loaded with `env` set. */
async function freshLog(env: Record<string, string | undefined> = {}): Promise<LogModule> {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.resetModules();
  return import("../../functions/runtime/log.js");
}

/** Every line printed through the console, with the console method that printed it. */
let printed: { method: string; line: string }[];
beforeEach(() => {
  vi.stubEnv("AWS_LAMBDA_FUNCTION_NAME", undefined);
  vi.stubEnv("_X_AMZN_TRACE_ID", undefined);
  vi.stubEnv("AWS_LAMBDA_LOG_LEVEL", undefined);
  vi.stubEnv("POWERTOOLS_LOG_LEVEL", undefined);
  vi.stubEnv("LOG_LEVEL", undefined);
  vi.stubEnv("POWERTOOLS_SERVICE_NAME", undefined);
  printed = [];
  for (const method of ["debug", "info", "warn", "error"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      printed.push({ method, line: args.map(String).join(" ") });
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

function entries(): Record<string, unknown>[] {
  return printed.map(({ line }) => JSON.parse(line) as Record<string, unknown>);
}

describe("logger: the line", () => {
  it("prints level, message, timestamp and service first, then the fields, on one line", async () => {
    // Prepare
    const { logger } = await freshLog();

    // Act
    logger.info("request", { route: "GET /x", status: 200, nested: { ok: true } });

    // Assess
    expect(printed).toHaveLength(1);
    expect(printed[0]?.method).toBe("info");
    expect(printed[0]?.line).not.toContain("\n");
    const [entry] = entries();
    expect(Object.keys(entry ?? {})).toEqual(["level", "message", "timestamp", "service", "route", "status", "nested"]);
    expect(entry).toMatchObject({ level: "INFO", message: "request", service: "agent-tracking", nested: { ok: true } });
    expect(new Date(String(entry?.timestamp)).toISOString()).toBe(entry?.timestamp);
  });

  it("leaves out top-level fields that are undefined, null or empty, and keeps the reserved keys", async () => {
    // Prepare
    const { logger } = await freshLog({ POWERTOOLS_SERVICE_NAME: "custom-service" });

    // Act
    logger.warn("careful", {
      gone: undefined,
      none: null,
      empty: "",
      zero: 0,
      no: false,
      level: "DEBUG",
      service: "x",
    });

    // Assess
    const lines = entries();
    const entry = lines.find((line) => line.message === "careful");
    expect(entry).toEqual({
      level: "WARN",
      message: "careful",
      timestamp: expect.any(String),
      service: "custom-service",
      zero: 0,
      no: false,
    });
    expect(lines.filter((line) => String(line.message).includes("reserved key"))).toHaveLength(2);
  });

  it("adds the X-Ray trace id (the Root of _X_AMZN_TRACE_ID) as xray_trace_id", async () => {
    // Prepare
    const { logger } = await freshLog({
      _X_AMZN_TRACE_ID: "Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1",
    });

    // Act
    logger.info("traced");

    // Assess
    expect(entries()[0]).toMatchObject({ xray_trace_id: "1-67891233-abcdef012345678912345678" });
  });

  it("prints bigints as strings and cuts a value that contains itself", async () => {
    // Prepare
    const { logger } = await freshLog();
    const loop: Record<string, unknown> = { name: "loop" };
    loop.self = loop;

    // Act
    logger.info("odd values", { big: 12345678901234567890n, loop });

    // Assess
    expect(entries()[0]).toMatchObject({ big: "12345678901234567890", loop: { name: "loop" } });
    expect(entries()[0]?.loop).not.toHaveProperty("self");
  });
});

describe("logError", () => {
  it("prints the context and a structured error with name, location, message, stack, cause and own properties", async () => {
    // Prepare
    const { logError } = await freshLog();
    class StoreError extends Error {
      readonly code = "E_STORE";
    }
    function storeEvents(): StoreError {
      return new StoreError("store exploded", { cause: new TypeError("bad input") });
    }
    const error = storeEvents();

    // Act
    logError("unhandled error", error, { route: "POST /api/sdk/events" });

    // Assess
    expect(printed[0]?.method).toBe("error");
    const [entry] = entries();
    expect(entry).toMatchObject({
      level: "ERROR",
      message: "unhandled error",
      route: "POST /api/sdk/events",
      error: {
        name: "Error",
        message: "store exploded",
        stack: error.stack,
        code: "E_STORE",
        cause: { name: "TypeError", message: "bad input" },
      },
    });
    const printedError = entry?.error as Record<string, unknown>;
    expect(Object.keys(printedError)).toEqual(["name", "location", "message", "stack", "cause", "code"]);
    expect(printedError.location).toMatch(/structured-log\.test\.ts:\d+$/);
  });

  it("prints a thrown non-Error as { message }", async () => {
    // Prepare
    const { logError } = await freshLog();

    // Act
    logError("job failed", "plain string", { jobId: "job-1" });

    // Assess
    expect(entries()[0]).toMatchObject({ level: "ERROR", jobId: "job-1", error: { message: "plain string" } });
  });
});

describe("logger: level threshold", () => {
  it("prints INFO and above by default", async () => {
    // Prepare
    const { logger } = await freshLog();

    // Act
    logger.debug("hidden");
    logger.info("shown");

    // Assess
    expect(entries().map((entry) => entry.message)).toEqual(["shown"]);
  });

  it.each([
    ["POWERTOOLS_LOG_LEVEL", "DEBUG"],
    ["LOG_LEVEL", "debug"],
    ["AWS_LAMBDA_LOG_LEVEL", "DEBUG"],
  ])("prints DEBUG when %s=%s", async (variable, level) => {
    // Prepare
    const { logger } = await freshLog({ [variable]: level });

    // Act
    logger.debug("verbose");

    // Assess
    expect(printed).toMatchObject([{ method: "debug" }]);
    expect(entries()[0]).toMatchObject({ level: "DEBUG", message: "verbose" });
  });

  it("prints only ERROR when POWERTOOLS_LOG_LEVEL=ERROR", async () => {
    // Prepare
    const { logger, logError } = await freshLog({ POWERTOOLS_LOG_LEVEL: "ERROR" });

    // Act
    logger.info("quiet");
    logger.warn("quiet too");
    logError("loud", new Error("boom"));

    // Assess
    expect(entries().map((entry) => entry.message)).toEqual(["loud"]);
  });
});

describe("logger on AWS Lambda", () => {
  it("writes DEBUG/INFO to stdout and WARN/ERROR to stderr, never through the console", async () => {
    // Prepare
    const { logger } = await freshLog({ AWS_LAMBDA_FUNCTION_NAME: "ats-create-event", POWERTOOLS_LOG_LEVEL: "DEBUG" });
    const written: { stream: string; chunk: string }[] = [];
    for (const stream of ["stdout", "stderr"] as const) {
      vi.spyOn(process[stream], "write").mockImplementation((chunk: string | Uint8Array) => {
        written.push({ stream, chunk: String(chunk) });
        return true;
      });
    }

    // Act
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");

    // Assess
    expect(printed).toEqual([]);
    expect(written.map(({ stream, chunk }) => [stream, (JSON.parse(chunk) as { message: string }).message])).toEqual([
      ["stdout", "d"],
      ["stdout", "i"],
      ["stderr", "w"],
      ["stderr", "e"],
    ]);
    expect(written.every(({ chunk }) => chunk.endsWith("}\n") && chunk.indexOf("\n") === chunk.length - 1)).toBe(true);
  });
});
