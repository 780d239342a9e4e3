/**
 * The web console's files (`web/dist`) served by the local adapter from the
 * same origin as the API, the way CloudFront serves them on AWS: `index.html`
 * for the console's own routes (single-page app), long-lived caching for the
 * content-hashed `/assets/*`, and the security headers CloudFront adds.
 */
import { createReadStream, existsSync, realpathSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, sep } from "node:path";

/**
 * What CloudFront's response-headers policy sends with the console
 * (lib/constructs/console-site.ts), less the Cognito domain, which the local
 * sign-in does not use: nothing from another origin, no inline script or
 * style (React sets styles through the CSSOM, which the CSP allows), never
 * framed. A test keeps the two policies the same.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONSOLE_CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
};

/** `index.html` and other unhashed files: always revalidated, so a deploy shows at once. */
const REVALIDATE = "no-cache";
/** Vite names every file under `assets/` after a hash of its content: cache it for a year. */
const IMMUTABLE = "public, max-age=31536000, immutable";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
};

/** Paths that belong to the API or the local tools, never to the console. */
export function isConsolePath(pathname: string): boolean {
  return !/^\/(api|local)(\/|$)/.test(pathname);
}

/**
 * The path's segments, percent-decoded, or `undefined` when the path tries to
 * leave the directory or cannot be decoded: `.`/`..` segments (raw or
 * encoded), encoded separators, backslashes, NUL, hidden files.
 */
export function safeSegments(rawPath: string): string[] | undefined {
  const segments: string[] = [];
  for (const raw of rawPath.split("/").slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === "") continue;
    if (segment.startsWith(".") || /[/\\\0]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}

function send(
  response: ServerResponse,
  statusCode: number,
  headers: Record<string, string | number>,
  body: string | undefined,
  head: boolean,
): void {
  response.writeHead(statusCode, { ...CONSOLE_SECURITY_HEADERS, ...headers });
  response.end(head ? undefined : body);
}

function sendText(response: ServerResponse, statusCode: number, message: string, head: boolean): void {
  send(
    response,
    statusCode,
    { "content-type": "text/plain; charset=utf-8", "cache-control": REVALIDATE },
    `${message}\n`,
    head,
  );
}

/** A served file, or why none is. */
type Resolved = { readonly path: string; readonly size: number; readonly mtimeMs: number } | "not found";

function resolveFile(root: string, segments: readonly string[]): Resolved {
  const candidate = join(root, ...segments);
  if (!existsSync(candidate)) return "not found";
  // A symbolic link inside web/dist must not lead out of it.
  const real = realpathSync(candidate);
  if (real !== root && !real.startsWith(`${root}${sep}`)) return "not found";
  const stats = statSync(real);
  if (!stats.isFile()) return "not found";
  return { path: real, size: stats.size, mtimeMs: stats.mtimeMs };
}

/**
 * Whether a request path is one of the console's client-side routes, by the
 * rule of the CloudFront function in front of the bucket on AWS
 * (lib/constructs/console-site.ts): its last segment, as sent, has no dot.
 * So `/agents/gpt-4.1-bot` is a file there (and a 404 here), while
 * `/agents/gpt-4%2E1-bot` is a route.
 */
export function isClientRoute(rawPath: string): boolean {
  return !rawPath.slice(rawPath.lastIndexOf("/") + 1).includes(".");
}

/**
 * Serves a GET or HEAD for a console path from `directory` (`web/dist`):
 * `index.html` for a client-side route, else the file, or a 404 when there
 * is none (S3 answers 403 there; never `index.html`, which a browser would
 * try to run as a script).
 */
export function serveConsoleFile(
  directory: string,
  request: IncomingMessage,
  response: ServerResponse,
  rawPath: string,
): void {
  const head = request.method === "HEAD";
  const segments = safeSegments(rawPath);
  if (segments === undefined) {
    sendText(response, 400, "Bad Request: the path is not allowed", head);
    return;
  }
  if (!existsSync(join(directory, "index.html"))) {
    sendText(response, 503, "The console is not built: run npm run web:build (or restart npm start)", head);
    return;
  }
  const root = realpathSync(directory);
  const route = isClientRoute(rawPath);
  const resolved = resolveFile(root, route ? ["index.html"] : segments);
  if (resolved === "not found") {
    sendText(response, 404, `Not Found: ${segments.join("/")}`, head);
    return;
  }
  const etag = `"${resolved.size.toString(16)}-${Math.floor(resolved.mtimeMs).toString(16)}"`;
  const hashedAsset = !route && segments.length > 1 && segments[0] === "assets";
  const headers = {
    "content-type": CONTENT_TYPES[extname(resolved.path).toLowerCase()] ?? "application/octet-stream",
    "cache-control": hashedAsset ? IMMUTABLE : REVALIDATE,
    etag,
  };
  if (request.headers["if-none-match"] === etag) {
    send(response, 304, headers, undefined, true);
    return;
  }
  response.writeHead(200, { ...CONSOLE_SECURITY_HEADERS, ...headers, "content-length": resolved.size });
  if (head) {
    response.end();
    return;
  }
  createReadStream(resolved.path)
    .on("error", () => response.destroy())
    .pipe(response);
}
