/**
 * Members: GET /api/members, PATCH/DELETE /api/members/{userId}; invitations (owners): GET/POST
 * /api/invitations, DELETE /api/invitations/{userId}. Nobody is added directly: an invited person joins
 * when they accept.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import type { Invitation, Member, Role } from "./types";
import { useApiRequest } from "./use-api-request";

export const membersKey = (orgId: string) => ["org", orgId, "members"] as const;
export const invitationsKey = (orgId: string) => ["org", orgId, "invitations"] as const;

export function useMembers() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: membersKey(orgId),
    queryFn: ({ signal }) => request<{ items: Member[] }>("/api/members", { signal }).then((body) => body.items),
  });
}

/** The organisation's pending invitations (owners only: `enabled` false for the others). */
export function useInvitations(enabled: boolean) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: invitationsKey(orgId),
    enabled,
    queryFn: ({ signal }) =>
      request<{ items: Invitation[] }>("/api/invitations", { signal }).then((body) => body.items),
  });
}

function useMemberMutation<Input, Output>(
  run: (input: Input) => Promise<Output>,
  key: (orgId: string) => readonly string[] = membersKey,
) {
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: key(orgId) }),
  });
}

export function useInvite() {
  const request = useApiRequest();
  return useMemberMutation(
    (input: { email: string; role: Role }) => request<Invitation>("/api/invitations", { method: "POST", body: input }),
    invitationsKey,
  );
}

export function useRevokeInvitation() {
  const request = useApiRequest();
  return useMemberMutation(
    (userId: string) => request<undefined>(`/api/invitations/${encodeURIComponent(userId)}`, { method: "DELETE" }),
    invitationsKey,
  );
}

export function useChangeRole() {
  const request = useApiRequest();
  return useMemberMutation(({ userId, role }: { userId: string; role: Role }) =>
    request<Member>(`/api/members/${encodeURIComponent(userId)}`, { method: "PATCH", body: { role } }),
  );
}

export function useRemoveMember() {
  const request = useApiRequest();
  return useMemberMutation((userId: string) =>
    request<undefined>(`/api/members/${encodeURIComponent(userId)}`, { method: "DELETE" }),
  );
}
