/** What the operator CLIs share: usage errors (exit 2), required flags, and the run-and-report wrapper. */

export class UsageError extends Error {}

export function requiredFlag(value: string | undefined, flag: string, usage: string): string {
  if (value === undefined || value === "") throw new UsageError(`Missing --${flag}\n${usage}`);
  return value;
}

/** Runs a CLI: errors print their message only (no stack); usage errors exit 2, others 1. */
export async function runCli(main: (argv: string[]) => Promise<void>): Promise<void> {
  try {
    await main(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = error instanceof UsageError ? 2 : 1;
  }
}
