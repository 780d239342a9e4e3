/** Members: GET/POST /api/members, PATCH/DELETE /api/members/{userId}. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import type { Member, Role } from "./types";
import { useApiRequest } from "./use-api-request";

export const membersKey = (orgId: string) => ["org", orgId, "members"] as const;

export function useMembers() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: membersKey(orgId),
    queryFn: ({ signal }) => request<{ items: Member[] }>("/api/members", { signal }).then((body) => body.items),
  });
}

function useMemberMutation<Input, Output>(run: (input: Input) => Promise<Output>) {
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: membersKey(orgId) }),
  });
}

export function useAddMember() {
  const request = useApiRequest();
  return useMemberMutation((input: { email: string; role: Role }) =>
    request<Member>("/api/members", { method: "POST", body: input }),
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
