/** The API's JSON error body, as a typed error. */
export interface ApiIssue {
  path: string;
  message: string;
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    readonly issues: readonly ApiIssue[] = [],
  ) {
    super(message);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toIssues(value: unknown): ApiIssue[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isRecord)
    .map((issue) => ({ path: String(issue.path ?? ""), message: String(issue.message ?? "") }));
}

/** Builds an ApiError from a failed response, whatever its body (JSON from the API, HTML from a proxy, nothing). */
export async function apiErrorFrom(response: Response): Promise<ApiError> {
  const fallback = response.statusText || `HTTP ${response.status}`;
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (isRecord(body)) {
    const title = typeof body.error === "string" ? body.error : fallback;
    const message = typeof body.message === "string" ? body.message : title;
    return new ApiError(response.status, title, message, toIssues(body.issues));
  }
  return new ApiError(response.status, fallback, `The server answered ${response.status} ${fallback}`.trim());
}

export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status);
}
