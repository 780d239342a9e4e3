/** GET /api/me: the signed-in user and their organisations. */
import { useQuery } from "@tanstack/react-query";
import { useAuth } from "../auth/auth-context";
import { apiRequest } from "./client";
import { isApiError } from "./errors";
import type { Me } from "./types";

export function useMe() {
  const { tokens, expire } = useAuth();
  const accessToken = tokens?.accessToken ?? "";
  return useQuery({
    queryKey: ["me", accessToken],
    enabled: accessToken !== "",
    staleTime: 5 * 60_000,
    queryFn: async ({ signal }) => {
      try {
        return await apiRequest<Me>({ accessToken, orgId: null }, "/api/me", { signal });
      } catch (error) {
        if (isApiError(error, 401)) expire();
        throw error;
      }
    },
  });
}
