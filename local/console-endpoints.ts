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
 * requests whose `Host` is a loopback name (a web page on a DNS-rebound name
 * is refused) and, for the sign-in, a JSON body from the same origin (a form
 * on another site cannot send one, and could not read the answer anyway).
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

/** Refuses a request to `/local/*` that did not come to a loopback name of this server. */
function refusedOrigin(request: LocalEndpointRequest): LocalEndpointReply | undefined {
  const host = request.headers.host ?? "";
  const hostname = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":")[0] ?? "");
  if (!LOOPBACK_HOSTS.has(hostname.toLowerCase())) {
    return problem(403, "Forbidden", "Local sign-in answers only on 127.0.0.1 or localhost");
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== "null") {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = "";
    }
    if (originHost !== host) return problem(403, "Forbidden", "Local sign-in answers only its own origin");
  }
  return undefined;
}

function listUsers(identity: LocalIdentity, request: LocalEndpointRequest): LocalEndpointReply {
  const refused = refusedOrigin(request);
  if (refused !== undefined) return refused;
  return reply(
    200,
    identity.listUsers().map((user) => ({ email: user.email, userId: user.userId })),
  );
}

function signIn(identity: LocalIdentity, request: LocalEndpointRequest): LocalEndpointReply {
  const refused = refusedOrigin(request);
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
