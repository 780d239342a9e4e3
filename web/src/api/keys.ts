/** Key management: GET/POST /api/keys, rotate, revoke, audit. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import type { ApiKey, ApiKeyAuditRecord, CreatedApiKey, Environment, RotatedApiKey, Scope } from "./types";
import { useApiRequest } from "./use-api-request";

export const keysKey = (orgId: string) => ["org", orgId, "keys"] as const;

export function useKeys() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: keysKey(orgId),
    queryFn: ({ signal }) => request<{ items: ApiKey[] }>("/api/keys", { signal }).then((body) => body.items),
  });
}

export function useKeyAudit(keyId: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...keysKey(orgId), keyId, "audit"],
    queryFn: ({ signal }) =>
      request<{ items: ApiKeyAuditRecord[] }>(`/api/keys/${encodeURIComponent(keyId)}/audit`, { signal }).then(
        (body) => body.items,
      ),
  });
}

export interface CreateKeyInput {
  name: string;
  environment: Environment;
  scopes: Scope[];
}

export function useCreateKey() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateKeyInput) => request<CreatedApiKey>("/api/keys", { method: "POST", body: input }),
    onSuccess: (created) => {
      // Listed at once from the answer (without the key itself), not only once the list is read again: a slow
      // re-read must not leave the new key missing from the list its creator just closed the dialog onto.
      queryClient.setQueryData<ApiKey[]>(keysKey(orgId), (listed) =>
        listed === undefined || listed.some((apiKey) => apiKey.id === created.id)
          ? listed
          : [...listed, listedKeyOf(created)],
      );
      return queryClient.invalidateQueries({ queryKey: keysKey(orgId) });
    },
  });
}

/** A just-created key as GET /api/keys lists it. */
function listedKeyOf(created: CreatedApiKey): ApiKey {
  const { key: _key, ...fields } = created;
  return {
    ...fields,
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    rotatedFrom: null,
    rotatedTo: null,
    status: "active",
  };
}

export function useRotateKey() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, overlapSeconds }: { id: string; overlapSeconds: number }) =>
      request<RotatedApiKey>(`/api/keys/${encodeURIComponent(id)}/rotate`, {
        method: "POST",
        body: { overlapSeconds },
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey(orgId) }),
  });
}

export function useRevokeKey() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request<undefined>(`/api/keys/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey(orgId) }),
  });
}
