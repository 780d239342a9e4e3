/**
 * STUB (catalog helper, issue 35): the lead's export Lambda replaces this file. It exists only so the CDK stack
 * can bundle the export function before the real handler is merged; it exports `handler` and does nothing.
 */
export async function handler(): Promise<{ readonly exported: false; readonly reason: string }> {
  return { exported: false, reason: "export-handler.ts is a stub until the export run is merged" };
}
