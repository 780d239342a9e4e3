/**
 * The console on the local stack: its files served from the API's origin
 * (single-page routing, content types, caching, the security headers
 * CloudFront sends, no way out of the directory), its configuration, and the
 * local sign-in whose tokens the API accepts.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../functions/routes.js";
import { putMembership } from "../../functions/store/members/membership-store.js";
import { ensureOrganisation } from "../../functions/store/members/organisation-store.js";
import { consoleContentSecurityPolicy } from "../../lib/constructs/console-site.js";
import { ensureConsoleBuilt, staleReason } from "../../local/console-build.js";
import { consoleEndpoints } from "../../local/console-endpoints.js";
import { type LocalApi, startLocalApi } from "../../local/http-adapter.js";
import { configureLocalIssuer } from "../../local/local-identity.js";
import { REPOSITORY_ROOT } from "../../local/settings.js";
import { CONSOLE_SECURITY_HEADERS } from "../../local/static-console.js";
import { call, identity, uniqueOrgId } from "../support/fixtures.js";
import { rememberSecretsIn } from "../support/secrets-ledger.js";

const COGNITO = "https://ats-example.auth.eu-west-1.amazoncognito.com";
const INDEX_HTML =
  '<!doctype html><html lang="en"><title>console</title><script src="/assets/index-Ab12Cd34.js"></script>';
const ASSET = "console.log('the console');";
/** CloudFront's policy (lib/constructs/console-site.ts) less the Cognito domain the local sign-in does not use. */
const EXPECTED_CSP = consoleContentSecurityPolicy(COGNITO).replaceAll(` ${COGNITO}`, "");

let api: LocalApi;
let dist: string;
let outside: string;

beforeAll(async () => {
  // Prepare: a built console of our own (web/dist is generated and not in the repository), a secret beside it.
  const root = mkdtempSync(join(tmpdir(), "ats-console-"));
  dist = join(root, "dist");
  mkdirSync(join(dist, "assets"), { recursive: true });
  writeFileSync(join(dist, "index.html"), INDEX_HTML);
  writeFileSync(join(dist, "assets", "index-Ab12Cd34.js"), ASSET);
  writeFileSync(join(dist, "assets", "index-Ef56Gh78.css"), "body{margin:0}");
  writeFileSync(join(dist, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  writeFileSync(join(dist, ".env"), "SECRET=dotfile");
  outside = join(root, "secret.txt");
  writeFileSync(outside, "SECRET=outside");
  symlinkSync(outside, join(dist, "assets", "link.txt"));
  api = await startLocalApi({
    routes,
    root: REPOSITORY_ROOT,
    documents: { "/.well-known/jwks.json": () => identity.jwks() },
    localEndpoints: consoleEndpoints(identity),
    consoleDirectory: dist,
  });
  configureLocalIssuer(api.url, identity);
});
afterAll(async () => {
  await api.close();
  rmSync(join(dist, ".."), { recursive: true, force: true });
});

/** A request with the path sent exactly as written (fetch would normalise `..`). */
function rawGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname, port, path, method: "GET", headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** A sign-in as the console's page sends it (a POST from the server's own origin). */
function signIn(body: unknown, headers: Record<string, string> = {}) {
  return call(api, "POST", "/local/sign-in", { body, headers: { origin: api.url, ...headers } });
}

/** A sign-in with every header chosen (Host included), as a hostile page or tool could send it. */
function rawSignIn(
  headers: Record<string, string>,
  email = "dev@localhost",
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        hostname,
        port,
        path: "/local/sign-in",
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(JSON.stringify({ email }));
  });
}

describe("the console's files", () => {
  it("serves index.html at / with the security headers and no caching", async () => {
    const response = await fetch(`${api.url}/`);

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("content-security-policy")).toBe(EXPECTED_CSP);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(await response.text()).toBe(INDEX_HTML);
  });

  it("serves hashed assets with their content type and a year of immutable caching; revalidates with ETag", async () => {
    const script = await fetch(`${api.url}/assets/index-Ab12Cd34.js`);
    const style = await fetch(`${api.url}/assets/index-Ef56Gh78.css`);
    const icon = await fetch(`${api.url}/favicon.svg`);
    const again = await fetch(`${api.url}/assets/index-Ab12Cd34.js`, {
      headers: { "if-none-match": script.headers.get("etag") ?? "" },
    });

    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await script.text()).toBe(ASSET);
    expect(style.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(icon.headers.get("cache-control")).toBe("no-cache");
    expect(again.status).toBe(304);
  });

  it.each(["/sessions", "/sessions/ses_01KAZ3X8Q9M4T7V2N6P5R1S0WE", "/agents/support-bot?range=7d", "/keys/"])(
    "answers the console route %s with index.html (single-page routing)",
    async (path) => {
      const response = await fetch(`${api.url}${path}`);

      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(await response.text()).toBe(INDEX_HTML);
    },
  );

  it("routes by CloudFront's rule: a last segment with a dot is a file (404 when missing), an encoded dot is a route", async () => {
    const dotted = await fetch(`${api.url}/agents/gpt-4.1-bot`, { headers: { accept: "text/html" } });
    const encoded = await fetch(`${api.url}/agents/gpt-4%2E1-bot`, { headers: { accept: "text/html" } });

    expect(dotted.status).toBe(404);
    expect(encoded.status).toBe(200);
    expect(await encoded.text()).toBe(INDEX_HTML);
  });

  it("answers a missing asset with 404, never index.html (a browser must not run HTML as a script)", async () => {
    const response = await fetch(`${api.url}/assets/index-Missing0.js`);

    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await response.text()).not.toContain("<html");
  });

  it("keeps /api/ and /local/ out of the console: an unknown path there is the API's JSON 404", async () => {
    const api404 = await call(api, "GET", "/api/nothing-here");
    const local404 = await call(api, "GET", "/local/nothing-here");

    expect(api404.status).toBe(404);
    expect(api404.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(api404.body).toEqual({ error: "Not Found", message: "No route for GET /api/nothing-here" });
    expect(local404.status).toBe(404);
    expect(local404.body).toEqual({ error: "Not Found", message: "No route for GET /local/nothing-here" });
  });

  it.each([
    "/../package.json",
    "/assets/../../secret.txt",
    "/%2e%2e/package.json",
    "/%2E%2E%2Fsecret.txt",
    "/assets/..%2f..%2fsecret.txt",
    "/assets/%5c..%5csecret.txt",
    "/..%5csecret.txt",
    "/.env",
    "/%2eenv",
    "/index.html%00.js",
    "/%E0%A4%A",
  ])("refuses the traversal attempt %s with 400", async (path) => {
    const response = await rawGet(path);

    expect(response.status).toBe(400);
    expect(response.body).toBe("Bad Request: the path is not allowed\n");
    expect(response.body).not.toContain("SECRET");
  });

  it("does not follow a symbolic link out of the directory", async () => {
    const response = await rawGet("/assets/link.txt");

    expect(response.status).toBe(404);
    expect(response.body).not.toContain("SECRET");
  });

  it("answers HEAD without a body and other methods on console paths with the API's JSON 404", async () => {
    const head = await fetch(`${api.url}/sessions`, { method: "HEAD" });
    const post = await call(api, "POST", "/sessions", { body: {} });

    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(INDEX_HTML)));
    expect(await head.text()).toBe("");
    expect(post.status).toBe(404);
    expect(post.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });
});

describe("GET /console-config.json", () => {
  it("tells the console to use the local sign-in", async () => {
    const response = await call(api, "GET", "/console-config.json");

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-security-policy")).toBe(EXPECTED_CSP);
    expect(response.body).toEqual({ auth: { kind: "local" } });
  });
});

describe("local sign-in", () => {
  it("lists the local issuer's users", async () => {
    const user = identity.ensureUser(`${randomUUID().slice(0, 8)}@example.com`);

    const response = await fetch(`${api.url}/local/users`);
    const users = (await response.json()) as unknown[];

    expect(response.status).toBe(200);
    expect(users).toContainEqual({ email: user.email, userId: user.userId });
    expect(users).toEqual(identity.listUsers().map(({ email, userId }) => ({ email, userId })));
  });

  it("signs a user in with a token the key-management routes accept for an organisation they belong to", async () => {
    // Prepare: a user who belongs to two organisations (so the console must choose one).
    const user = identity.ensureUser(`${randomUUID().slice(0, 8)}@example.com`);
    const [first, second] = [uniqueOrgId(), uniqueOrgId()];
    for (const orgId of [first, second]) {
      await ensureOrganisation(orgId);
      await putMembership({ orgId, userId: user.userId, email: user.email, role: "owner" });
    }

    // Act
    const signedIn = await signIn({ email: user.email });
    rememberSecretsIn(signedIn.text);
    const token = String(signedIn.body.accessToken);
    const keys = await call(api, "GET", "/api/keys", { key: token, headers: { "x-organization-id": second } });
    const created = await call(api, "POST", "/api/keys", {
      key: token,
      headers: { "x-organization-id": first },
      body: { name: "from the console" },
    });
    rememberSecretsIn(created.text);
    const listed = await call(api, "GET", "/api/keys", { key: token, headers: { "x-organization-id": first } });

    // Assess
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get("cache-control")).toBe("no-store");
    expect(signedIn.body).toEqual({
      accessToken: expect.stringMatching(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/),
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
    });
    const expiresIn = Date.parse(String(signedIn.body.expiresAt)) - Date.now();
    expect(expiresIn).toBeGreaterThan(3_500_000);
    expect(expiresIn).toBeLessThanOrEqual(3_600_000);
    expect(keys.status).toBe(200);
    expect(keys.body).toEqual(expect.objectContaining({ items: [] }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "from the console", createdBy: user.email });
    expect(listed.body.items).toEqual([expect.objectContaining({ name: "from the console", createdBy: user.email })]);
  });

  it("matches the email case-insensitively, as Cognito does", async () => {
    const user = identity.ensureUser(`${randomUUID().slice(0, 8)}@example.com`);

    const response = await signIn({ email: user.email.toUpperCase() });
    rememberSecretsIn(response.text);
    const claims = JSON.parse(
      Buffer.from(String(response.body.accessToken).split(".")[1] ?? "", "base64url").toString(),
    );

    expect(response.status).toBe(200);
    expect(claims).toMatchObject({ sub: user.userId, username: user.email, iss: api.url, token_use: "access" });
  });

  it("answers 404 for an email the local issuer does not know", async () => {
    const response = await signIn({ email: "nobody@example.com" });

    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: "Not Found",
      message: "No local user nobody@example.com (npm run users -- token --email <email> --org <org> creates one)",
    });
  });

  it.each([
    ["no body", undefined],
    ["a body that is not JSON", "email=dev@localhost"],
    ["an array", ["dev@localhost"]],
    ["no email", {}],
    ["an empty email", { email: "" }],
    ["an email that is not a string", { email: 42 }],
    ["an unknown field", { email: "dev@localhost", password: "x" }],
  ])("answers 400 for %s", async (_, body) => {
    const response = await signIn(body);

    expect(response.status).toBe(400);
    expect(response.body.error).toBe("Bad Request");
    expect(response.body.message).toMatch(
      /^The body (is not valid JSON|must be \{ "email": "<a local user's email>" \})$/,
    );
  });

  it("answers 415 to a body that is not JSON by its content type (a form on another site)", async () => {
    const response = await signIn("email=dev%40localhost", { "content-type": "application/x-www-form-urlencoded" });

    expect(response.status).toBe(415);
    expect(response.body).toEqual({
      error: "Unsupported Media Type",
      message: "Send the body as JSON (Content-Type: application/json)",
    });
  });

  it("refuses another origin and a non-loopback Host (DNS rebinding) with 403", async () => {
    const user = identity.ensureUser(`${randomUUID().slice(0, 8)}@example.com`);

    const crossOrigin = await signIn({ email: user.email }, { origin: "https://evil.example.com" });
    const rebound = await rawGet("/local/users", { host: `evil.example.com:${new URL(api.url).port}` });
    const viaLocalhost = await rawGet("/local/users", { host: `localhost:${new URL(api.url).port}` });

    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.body).toEqual({ error: "Forbidden", message: "Local sign-in answers only its own origin" });
    expect(crossOrigin.text).not.toContain("eyJ");
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toEqual({
      error: "Forbidden",
      message: "Local sign-in answers only on 127.0.0.1 or localhost",
    });
    expect(viaLocalhost.status).toBe(200);
  });

  it("requires the exact loopback Host and the exact Origin: look-alikes, Origin null and no Origin are 403 (issue 21)", async () => {
    const port = new URL(api.url).port;
    const own = { host: `127.0.0.1:${port}`, origin: api.url };
    const attempts: [string, Record<string, string>, string][] = [
      ["a bracketed look-alike Host", { ...own, host: `[::1].evil.example:${port}` }, "on 127.0.0.1 or localhost"],
      [
        "a Host with a loopback prefix",
        { ...own, host: `127.0.0.1.evil.example:${port}` },
        "on 127.0.0.1 or localhost",
      ],
      ["a Host of another port", { ...own, host: `127.0.0.1:${Number(port) + 1}` }, "on 127.0.0.1 or localhost"],
      ["a Host without a port", { ...own, host: "localhost" }, "on 127.0.0.1 or localhost"],
      ["Origin: null (a sandboxed page)", { ...own, origin: "null" }, "its own origin"],
      ["no Origin", { host: own.host }, "its own origin"],
      ["an Origin of another scheme", { ...own, origin: `https://127.0.0.1:${port}` }, "its own origin"],
      ["an Origin with a path", { ...own, origin: `${api.url}/x` }, "its own origin"],
    ];
    for (const [what, headers, answer] of attempts) {
      const response = await rawSignIn(headers);
      expect(response.status, what).toBe(403);
      expect(JSON.parse(response.body), what).toEqual({
        error: "Forbidden",
        message: `Local sign-in answers only ${answer}`,
      });
    }
    const user = identity.ensureUser(`${randomUUID().slice(0, 8)}@example.com`);
    const signedIn = await rawSignIn({ host: `localhost:${port}`, origin: `http://localhost:${port}` }, user.email);
    rememberSecretsIn(signedIn.body);
    expect(signedIn.status).toBe(200);
  });

  it("answers 405 to another method on a local endpoint", async () => {
    const response = await call(api, "GET", "/local/sign-in");

    expect(response.status).toBe(405);
    expect(response.body).toEqual({ error: "Method Not Allowed", message: "GET is not supported on /local/sign-in" });
  });

  it("is not part of the route table (never deployed to AWS)", () => {
    const paths = routes.map((route) => route.path);

    expect(paths.filter((path) => !path.startsWith("/api/"))).toEqual([]);
    expect(CONSOLE_SECURITY_HEADERS["x-frame-options"]).toBe("DENY");
  });
});

describe("npm start's console build", () => {
  /** A repository of its own whose `web:build` script records each run and writes web/dist/index.html (or fails). */
  function repository(script: string): string {
    const root = mkdtempSync(join(tmpdir(), "ats-console-build-"));
    mkdirSync(join(root, "web", "src"), { recursive: true });
    writeFileSync(join(root, "web", "src", "main.tsx"), "export {};");
    writeFileSync(join(root, "web", "index.html"), "<!doctype html>");
    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ name: "fixture", private: true, scripts: { "web:build": script } }),
    );
    return root;
  }
  const BUILD =
    "node -e \"const fs=require('fs');fs.appendFileSync('builds','x');fs.mkdirSync('web/dist',{recursive:true});setTimeout(()=>fs.writeFileSync('web/dist/index.html','built'),300)\"";

  it("builds when web/dist is missing or older than a source, once for concurrent starts, and says so in one line", async () => {
    const root = repository(BUILD);
    const lines: string[] = [];
    try {
      const missing = staleReason(root);
      const [first, second] = await Promise.all([
        ensureConsoleBuilt(root, (line) => lines.push(line)),
        ensureConsoleBuilt(root, (line) => lines.push(line)),
      ]);
      const fresh = staleReason(root);
      const later = new Date(Date.now() + 5_000);
      utimesSync(join(root, "web", "src", "main.tsx"), later, later);
      const edited = staleReason(root);
      const rebuilt = await ensureConsoleBuilt(root, (line) => lines.push(line));

      expect(missing).toBe("web/dist is missing");
      expect([first.state, second.state].sort()).toEqual(["built", "fresh"]);
      expect(fresh).toBeUndefined();
      expect(edited).toBe("web/src changed since the last build");
      expect(rebuilt).toEqual({ state: "built", directory: join(root, "web", "dist") });
      expect(readFileSync(join(root, "builds"), "utf8")).toBe("xx");
      expect(lines).toEqual([
        "Building the console (web/dist is missing): npm run web:build …",
        "Building the console (web/src changed since the last build): npm run web:build …",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it("reports a failed build with its output instead of throwing (the API still starts)", async () => {
    const root = repository("echo 'vite: something broke' && exit 3");
    try {
      const result = await ensureConsoleBuilt(root, () => undefined);

      expect(result.state).toBe("failed");
      expect(result.state === "failed" ? result.output : "").toContain("vite: something broke");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
