/** GET /api/me: the signed-in user, their organisations and their pending invitations; answering an invitation. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useAuth } from "../auth/auth-context";
import { apiRequest } from "./client";
import { isApiError } from "./errors";
import type { Me, Role } from "./types";

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

/** The membership an accepted invitation became. */
export interface AcceptedInvitation {
  orgId: string;
  role: Role;
  createdAt: string;
}

/**
 * Accepts or declines the signed-in user's invitation to an organisation (no X-Organization-Id: it is
 * theirs, not an organisation's), then reads /api/me again before resolving.
 */
export function useAnswerInvitation() {
  const { tokens, expire } = useAuth();
  const queryClient = useQueryClient();
  const accessToken = tokens?.accessToken ?? "";
  return useMutation({
    mutationFn: async ({
      orgId,
      answer,
      beforeRefresh,
    }: {
      orgId: string;
      answer: "accept" | "decline";
      /** Runs once the answer is recorded, before /api/me is read again (e.g. remembering the choice). */
      beforeRefresh?: () => void;
    }) => {
      try {
        await apiRequest<AcceptedInvitation | undefined>(
          { accessToken, orgId: null },
          `/api/me/invitations/${encodeURIComponent(orgId)}/${answer}`,
          { method: "POST" },
        );
        beforeRefresh?.();
      } catch (error) {
        if (isApiError(error, 401)) expire();
        throw error;
      } finally {
        // Answered, or answered elsewhere meanwhile (404): either way /api/me has changed.
        await queryClient.invalidateQueries({ queryKey: ["me"] });
      }
      return { orgId, answer };
    },
  });
}
