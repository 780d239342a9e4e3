/** The request function of the signed-in user: token, organisation and environment headers; 401 signs them out. */
import { useCallback } from "react";
import { useAuth } from "../auth/auth-context";
import { useOptionalOrganisation } from "../auth/organisation-context";
import { apiRequest, type RequestOptions } from "./client";
import { isApiError } from "./errors";
import type { Environment } from "./types";

export type ApiRequest = <T>(path: string, options?: RequestOptions & { environment?: Environment }) => Promise<T>;

export function useApiRequest(): ApiRequest {
  const { tokens, expire } = useAuth();
  const orgId = useOptionalOrganisation()?.orgId ?? null;
  const accessToken = tokens?.accessToken ?? "";
  return useCallback(
    async <T>(path: string, options: RequestOptions & { environment?: Environment } = {}) => {
      const { environment, ...rest } = options;
      try {
        return await apiRequest<T>(
          environment === undefined ? { accessToken, orgId } : { accessToken, orgId, environment },
          path,
          rest,
        );
      } catch (error) {
        if (isApiError(error, 401)) expire();
        throw error;
      }
    },
    [accessToken, orgId, expire],
  ) as ApiRequest;
}
