/**
 * What the console needs from the local stack beyond the API, served only by
 * the local adapter (never in the route table, never on AWS):
 *
 * - `GET /console-config.json`: how the console signs in (`local` here; on
 *   AWS the deployment writes the Cognito settings there);
 * - `GET /local/users`: the local issuer's users, for the sign-in page;
 * - `POST /local/sign-in` `{ "email" }`: an access token of the local issuer
 *   for that user, the same kind `npm run users -- token` prints.
 *
 * Signing in takes no password: whoever can reach the local server may act as
 * any local user. It listens on 127.0.0.1 only, and `/local/*` answers only
 * requests whose `Host` is exactly a loopback name with this server's port (a
 * web page on a DNS-rebound name is refused, `[::1].evil.example` included)
 * and, for the sign-in, a JSON body with an `Origin` that is exactly this
 * server's (a form on another site cannot send one, and a sandboxed page's
 * `Origin: null` is refused).
 */
import { z } from "zod";
import type { LocalEndpoint, LocalEndpointReply, LocalEndpointRequest } from "./http-adapter.js";
import type { LocalIdentity } from "./local-identity.js";

/** The console's sign-in settings on the local stack. */
export const LOCAL_CONSOLE_CONFIG = { auth: { kind: "local" } } as const;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

const signInBody = z.object({ email: z.string().min(1).max(320) }).strict();

function reply(statusCode: number, body: unknown): LocalEndpointReply {
  return { statusCode, body };
}

function problem(statusCode: number, error: string, message: string): LocalEndpointReply {
  return reply(statusCode, { error, message });
}

/** The `Host` values this server answers `/local/*` on: a loopback name with its own port, exactly. */
function loopbackHosts(apiUrl: string): Set<string> {
  const { port } = new URL(apiUrl);
  return new Set([...LOOPBACK_HOSTS].map((name) => `${name}:${port}`));
}

/**
 * Refuses a request to `/local/*` that did not come to a loopback name of this server, or (when `origin` is
 * "required", as for the sign-in) that does not carry exactly this server's origin.
 */
function refusedOrigin(
  request: LocalEndpointRequest,
  origin: "required" | "ifPresent",
): LocalEndpointReply | undefined {
  const host = (request.headers.host ?? "").toLowerCase();
  if (!loopbackHosts(request.apiUrl).has(host)) {
    return problem(403, "Forbidden", "Local sign-in answers only on 127.0.0.1 or localhost");
  }
  const sent = request.headers.origin;
  if (sent === undefined && origin === "ifPresent") return undefined;
  if (sent?.toLowerCase() !== `http://${host}`) {
    return problem(403, "Forbidden", "Local sign-in answers only its own origin");
  }
  return undefined;
}

function listUsers(identity: LocalIdentity, request: LocalEndpointRequest): LocalEndpointReply {
  // A same-origin GET carries no Origin; one that does must be this server's.
  const refused = refusedOrigin(request, "ifPresent");
  if (refused !== undefined) return refused;
  return reply(
    200,
    identity.listUsers().map((user) => ({ email: user.email, userId: user.userId })),
  );
}

function signIn(identity: LocalIdentity, request: LocalEndpointRequest): LocalEndpointReply {
  // Browsers send Origin with every POST, same-origin ones included.
  const refused = refusedOrigin(request, "required");
  if (refused !== undefined) return refused;
  const contentType = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (contentType !== "application/json") {
    return problem(415, "Unsupported Media Type", "Send the body as JSON (Content-Type: application/json)");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body.toString("utf8"));
  } catch {
    return problem(400, "Bad Request", "The body is not valid JSON");
  }
  const body = signInBody.safeParse(parsed);
  if (!body.success) return problem(400, "Bad Request", 'The body must be { "email": "<a local user\'s email>" }');
  const user = identity.findUser(body.data.email);
  if (user === undefined) {
    return problem(
      404,
      "Not Found",
      `No local user ${body.data.email} (npm run users -- token --email <email> --org <org> creates one)`,
    );
  }
  return reply(200, identity.signIn(user, request.apiUrl));
}

/** The console's local endpoints, signing tokens with `identity` (issuer: the server's own URL). */
export function consoleEndpoints(identity: LocalIdentity): LocalEndpoint[] {
  return [
    { method: "GET", path: "/console-config.json", handle: () => reply(200, LOCAL_CONSOLE_CONFIG) },
    { method: "GET", path: "/local/users", handle: (request) => listUsers(identity, request) },
    { method: "POST", path: "/local/sign-in", handle: (request) => signIn(identity, request) },
  ];
}
