/** Reads from a local stack started as a child process (`npm start`), with its API URL and key. */

/** The address and key of a running local stack. */
export interface StackAccess {
  readonly apiUrl: string;
  readonly apiKey: string;
}

/** GET `path` with the stack's key: the JSON body of a 200, else an error naming the status. */
export async function readJson(stack: StackAccess, path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    headers: { authorization: `Bearer ${stack.apiKey}` },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as Record<string, unknown>;
}
