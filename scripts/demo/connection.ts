/**
 * Where the demo sends to: `ATS_BASE_URL` / `ATS_API_KEY`, or else the local
 * stack's `$DATA_DIR/local.json` (written by `npm start`); and a check that
 * the service answers before anything is recorded.
 */
import { localJsonPath, noLocalStackHelp, readLocalJson, readSettings } from "../../local/settings.js";

export interface DemoTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** How to put the key in `$KEY` for the printed curl commands (never the key itself). */
  readonly keyCommand: string;
}

/** A problem the user can fix (stack not running, key refused): printed as one line, exit 1. */
export class DemoSetupError extends Error {
  override readonly name = "DemoSetupError";
}

const START_HINT = "start the local stack with `npm start` (in another terminal) and run `npm run demo` again";

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

export function resolveTarget(env: NodeJS.ProcessEnv = process.env): DemoTarget {
  const envUrl = nonEmpty(env.ATS_BASE_URL);
  const envKey = nonEmpty(env.ATS_API_KEY);
  if (envUrl !== undefined && envKey !== undefined) {
    return { baseUrl: envUrl.replace(/\/+$/, ""), apiKey: envKey, keyCommand: "KEY=$ATS_API_KEY" };
  }
  const settings = readSettings(env);
  const path = localJsonPath(settings);
  const local = readLocalJson(settings);
  const baseUrl = envUrl ?? local?.apiUrl;
  const apiKey = envKey ?? local?.apiKey;
  if (baseUrl === undefined || apiKey === undefined) throw new DemoSetupError(noLocalStackHelp(settings));
  return {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    apiKey,
    keyCommand: envKey !== undefined ? "KEY=$ATS_API_KEY" : `KEY=$(node -p 'require(${JSON.stringify(path)}).apiKey')`,
  };
}

/** Resolves when `GET /api/sdk/sessions?limit=1` answers 200 with this key; otherwise a `DemoSetupError` saying why. */
export async function checkService(target: DemoTarget, timeoutMs = 5000): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${target.baseUrl}/api/sdk/sessions?limit=1`, {
      headers: { authorization: `Bearer ${target.apiKey}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const code = (cause as { code?: unknown } | undefined)?.code;
    const why =
      typeof code === "string"
        ? code
        : error instanceof Error && error.name === "TimeoutError"
          ? "timed out"
          : "no answer";
    throw new DemoSetupError(`The service at ${target.baseUrl} is not answering (${why}): ${START_HINT}.`);
  }
  if (response.ok) {
    await response.body?.cancel();
    return;
  }
  const text = (await response.text()).slice(0, 200).replace(/\s+/g, " ");
  const hint =
    response.status === 401 || response.status === 403
      ? " — the API key was refused; it needs the scopes sessions:write, events:write and read"
      : "";
  throw new DemoSetupError(`The service at ${target.baseUrl} answered ${response.status}${hint}: ${text}`);
}
