import { isApiError } from "../api/errors";

/** What a failure means for the user, most of all a 403 (their role, not a broken page). */
export function describeError(error: unknown): { title: string; detail: string } {
  if (isApiError(error)) {
    switch (error.status) {
      case 403:
        return {
          title: "You don't have access to this",
          detail: `${error.message} Ask an owner or admin of the organisation if you need it.`,
        };
      case 404:
        return { title: "Not found", detail: error.message };
      case 409:
        return { title: "That could not be done", detail: error.message };
      case 429:
        return { title: "Too many requests", detail: `${error.message} Wait a moment and try again.` };
      case 0:
        return { title: "Offline", detail: error.message };
      default:
        if (error.status >= 500) return { title: "The service had a problem", detail: `${error.message} Try again.` };
        return {
          title: error.title,
          detail: [error.message, ...error.issues.map((issue) => `${issue.path}: ${issue.message}`)].join(" "),
        };
    }
  }
  return { title: "Something went wrong", detail: error instanceof Error ? error.message : String(error) };
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { title, detail } = describeError(error);
  const retryable = !isApiError(error) || error.status === 0 || error.status === 429 || error.status >= 500;
  return (
    <div className="state state--error" role="alert">
      <p className="state__title">{title}</p>
      <p className="state__body">{detail}</p>
      {onRetry !== undefined && retryable ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** An inline error under a form or in a dialog. */
export function InlineError({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const { title, detail } = describeError(error);
  return (
    <p className="inline-error" role="alert">
      <strong>{title}.</strong> {detail}
    </p>
  );
}
