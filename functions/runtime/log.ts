/** Structured JSON log lines (one object per line, CloudWatch friendly). */

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    return { errorName: error.name, errorMessage: error.message, stack: error.stack };
  }
  return { errorMessage: String(error) };
}

export function logError(message: string, error: unknown, context: Record<string, unknown> = {}): void {
  console.error(
    JSON.stringify({ level: "ERROR", message, timestamp: new Date().toISOString(), ...context, ...describe(error) }),
  );
}
