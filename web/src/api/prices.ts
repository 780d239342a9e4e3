/**
 * Model prices: the organisation's own (GET /api/prices, PUT/DELETE /api/prices/{model}, GET /api/prices/audit), the
 * table shipped with the service (GET /api/prices/table), and the models used over a period (GET /api/sdk/models).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import type {
  Environment,
  ModelsReport,
  OrganisationPrice,
  OrganisationPriceList,
  PriceAuditRecord,
  PriceRates,
  PriceTable,
} from "./types";
import { useApiRequest } from "./use-api-request";

export const pricesKey = (orgId: string) => ["org", orgId, "prices"] as const;

const modelPath = (model: string) => `/api/prices/${encodeURIComponent(model)}`;

export function useOrganisationPrices() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: pricesKey(orgId),
    queryFn: ({ signal }) => request<OrganisationPriceList>("/api/prices", { signal }),
  });
}

export function usePriceAudit(options: { enabled: boolean }) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...pricesKey(orgId), "audit"],
    enabled: options.enabled,
    queryFn: ({ signal }) =>
      request<{ items: PriceAuditRecord[] }>("/api/prices/audit", { signal }).then((body) => body.items),
  });
}

/** The shipped table changes only with a deployment: read once per visit. */
export function usePriceTable() {
  const request = useApiRequest();
  return useQuery({
    queryKey: ["price-table"],
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: ({ signal }) => request<PriceTable>("/api/prices/table", { signal }),
  });
}

/** The models used over whole UTC days `from`…`to` in an environment (calls, cost, unpriced calls, per model). */
export function useModelUsage(environment: Environment, from: string, to: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: ["org", orgId, environment, "models", from, to],
    queryFn: ({ signal }) => request<ModelsReport>("/api/sdk/models", { environment, signal, query: { from, to } }),
  });
}

export interface PriceInput extends PriceRates {
  model: string;
  effectiveFrom: string;
}

export function useSetPrice() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ model, ...body }: PriceInput) =>
      request<OrganisationPrice>(modelPath(model), { method: "PUT", body }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: pricesKey(orgId) }),
  });
}

export function useDeletePrice() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ model, effectiveFrom }: { model: string; effectiveFrom?: string }) =>
      request<undefined>(modelPath(model), { method: "DELETE", query: { effectiveFrom } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: pricesKey(orgId) }),
  });
}
