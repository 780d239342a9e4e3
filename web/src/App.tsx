/** Providers: server state (TanStack Query), who is signed in, and the routes. */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { isApiError } from "./api/errors";
import { AuthProvider } from "./auth/auth-context";
import type { TokenSet } from "./auth/tokens";

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: false,
        // Client errors (401, 403, 404, …) will not go away by asking again.
        retry: (failures, error) => failures < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500),
      },
    },
  });
}

export function AppProviders({
  client,
  initialTokens = null,
  children,
}: {
  client: QueryClient;
  initialTokens?: TokenSet | null;
  children: ReactNode;
}) {
  return (
    <QueryClientProvider client={client}>
      <AuthProvider initialTokens={initialTokens}>{children}</AuthProvider>
    </QueryClientProvider>
  );
}
