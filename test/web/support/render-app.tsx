/** Renders the console at a path with a mocked fetch: signed in, one organisation, a chosen role. */
import { cleanup, render } from "@testing-library/react";
import { MemoryRouter, useLocation } from "react-router";
import { afterEach, vi } from "vitest";
import { AppProviders, createQueryClient } from "../../../web/src/App";
import { AppRoutes } from "../../../web/src/AppRoutes";
import type { Role } from "../../../web/src/api/types";

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

/** A handler's answer: a status and a JSON body (204 has none). */
export interface MockAnswer {
  status?: number;
  body?: unknown;
}

/** An answer, or a promise of one (to hold a response back while a test acts). */
export type Handler = (request: RecordedRequest) => MockAnswer | Promise<MockAnswer>;
export type Routes = Record<string, Handler | MockAnswer>;

export function json(body: unknown, status = 200): MockAnswer {
  return { status, body };
}

export function apiError(status: number, error: string, message: string): MockAnswer {
  return { status, body: { error, message } };
}

/** Replaces fetch: "GET /api/keys" → answer; unknown routes answer 404 JSON. Returns the recorded requests. */
export function mockFetch(routes: Routes): RecordedRequest[] {
  const requests: RecordedRequest[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), "http://console.test");
    const method = init?.method ?? "GET";
    const request: RecordedRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: new Headers(init?.headers),
      body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
    };
    requests.push(request);
    const route = routes[`${method} ${url.pathname}`];
    const answer: MockAnswer =
      route === undefined
        ? { status: 404, body: { error: "Not Found", message: `No mock for ${method} ${url.pathname}` } }
        : typeof route === "function"
          ? await route(request)
          : route;
    const status = answer.status ?? 200;
    return new Response(status === 204 ? null : JSON.stringify(answer.body ?? null), {
      status,
      headers: { "Content-Type": "application/json" },
    });
  });
  vi.stubGlobal("fetch", fetchMock);
  return requests;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
  sessionStorage.clear();
});

export const ME = "ada@example.com";

/** The routes every signed-in page needs: local config and /api/me with the role. */
export function baseRoutes(role: Role): Routes {
  return {
    "GET /console-config.json": json({ auth: { kind: "local" } }),
    "GET /api/me": json({ userId: "user-1", email: ME, organisations: [{ orgId: "acme", role }], invitations: [] }),
  };
}

function LocationProbe() {
  const location = useLocation();
  return <output aria-label="Current location">{`${location.pathname}${location.search}`}</output>;
}

export function renderApp(path: string, options: { signedIn?: boolean } = {}) {
  const client = createQueryClient();
  client.setDefaultOptions({ queries: { ...client.getDefaultOptions().queries, retry: false } });
  const tokens = options.signedIn === false ? null : { accessToken: "token-1", expiresAt: Date.now() + 3_600_000 };
  return render(
    <MemoryRouter initialEntries={[path]}>
      <AppProviders client={client} initialTokens={tokens}>
        <AppRoutes />
        <LocationProbe />
      </AppProviders>
    </MemoryRouter>,
  );
}
