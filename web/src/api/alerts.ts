/**
 * Alerts (issue 34): monitors of an organisation's environment (GET/POST /api/alerts/monitors, GET/PUT/DELETE
 * …/{id}, …/{id}/history, …/{id}/test, …/preview) and the organisation's destinations (GET/POST
 * /api/alerts/destinations, GET/PUT/DELETE …/{id}, …/{id}/rotate-secret, …/{id}/test).
 */
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useOrganisation } from "../auth/organisation-context";
import { concurrencyLimit } from "../lib/concurrency-limit";
import type {
  CreatedDestination,
  Destination,
  DestinationKind,
  DestinationTestResult,
  Monitor,
  MonitorDefinition,
  MonitorHistoryEntry,
  MonitorPreview,
  MonitorTestResult,
} from "./alert-types";
import type { Environment } from "./types";
import { useApiRequest } from "./use-api-request";

export const monitorsKey = (orgId: string, environment: Environment) =>
  ["org", orgId, environment, "alerts", "monitors"] as const;
export const destinationsKey = (orgId: string) => ["org", orgId, "alerts", "destinations"] as const;

const MONITORS = "/api/alerts/monitors";
const DESTINATIONS = "/api/alerts/destinations";
const monitorPath = (id: string) => `${MONITORS}/${encodeURIComponent(id)}`;
const destinationPath = (id: string) => `${DESTINATIONS}/${encodeURIComponent(id)}`;

/** History entries read per page. */
export const HISTORY_PAGE_SIZE = 50;
/** A preview is the last 72 hours, hour by hour: read again at most every 5 minutes. */
const PREVIEW_STALE_MS = 5 * 60_000;
/** Previews read at once (the list asks for one per monitor, up to 100; the route's burst is 100 for everyone). */
const previewSlots = concurrencyLimit(4);

export function useMonitors(environment: Environment) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: monitorsKey(orgId, environment),
    queryFn: ({ signal }) =>
      request<{ monitors: Monitor[] }>(MONITORS, { environment, signal }).then((body) => body.monitors),
  });
}

export function useMonitor(environment: Environment, id: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...monitorsKey(orgId, environment), "one", id],
    queryFn: ({ signal }) => request<Monitor>(monitorPath(id), { environment, signal }),
  });
}

export function useMonitorHistory(environment: Environment, id: string) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useInfiniteQuery({
    queryKey: [...monitorsKey(orgId, environment), "history", id],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      request<{ history: MonitorHistoryEntry[]; nextCursor: string | null }>(`${monitorPath(id)}/history`, {
        environment,
        signal,
        query: { limit: HISTORY_PAGE_SIZE, cursor: pageParam },
      }),
    getNextPageParam: (page) => page.nextCursor,
  });
}

/**
 * The figure of a definition over the last 72 hours. `definition` null: nothing to ask yet (an incomplete form).
 * The previous answer stays on screen while the next one is read, so the chart does not blink as the form changes.
 */
export function useMonitorPreview(environment: Environment, definition: MonitorDefinition | null) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: [...monitorsKey(orgId, environment), "preview", definition],
    enabled: definition !== null,
    staleTime: PREVIEW_STALE_MS,
    placeholderData: keepPreviousData,
    retry: false,
    queryFn: ({ signal }) =>
      previewSlots(() =>
        request<MonitorPreview>(`${MONITORS}/preview`, { method: "POST", environment, signal, body: definition }),
      ),
  });
}

export function useSaveMonitor(environment: Environment) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, definition }: { id?: string | undefined; definition: MonitorDefinition }) =>
      id === undefined
        ? request<Monitor>(MONITORS, { method: "POST", environment, body: definition })
        : request<Monitor>(monitorPath(id), { method: "PUT", environment, body: definition }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: monitorsKey(orgId, environment) }),
  });
}

export function useDeleteMonitor(environment: Environment) {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request<undefined>(monitorPath(id), { method: "DELETE", environment }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: monitorsKey(orgId, environment) }),
  });
}

export function useTestMonitor(environment: Environment) {
  const request = useApiRequest();
  return useMutation({
    mutationFn: (id: string) => request<MonitorTestResult>(`${monitorPath(id)}/test`, { method: "POST", environment }),
  });
}

export function useDestinations() {
  const request = useApiRequest();
  const { orgId } = useOrganisation();
  return useQuery({
    queryKey: destinationsKey(orgId),
    queryFn: ({ signal }) =>
      request<{ destinations: Destination[] }>(DESTINATIONS, { signal }).then((body) => body.destinations),
  });
}

export interface DestinationInput {
  name: string;
  kind: DestinationKind;
  url?: string;
}

function useDestinationMutation<Input, Output>(send: (input: Input) => Promise<Output>) {
  const { orgId } = useOrganisation();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: destinationsKey(orgId) }),
  });
}

export function useCreateDestination() {
  const request = useApiRequest();
  return useDestinationMutation((input: DestinationInput) =>
    request<CreatedDestination>(DESTINATIONS, { method: "POST", body: input }),
  );
}

/** PUT …/{id}: name, url and enabled (re-enabling clears the failure count). */
export function useUpdateDestination() {
  const request = useApiRequest();
  return useDestinationMutation((destination: Destination & { enabled: boolean }) =>
    request<Destination>(destinationPath(destination.id), {
      method: "PUT",
      body: {
        name: destination.name,
        enabled: destination.enabled,
        ...(destination.url === null ? {} : { url: destination.url }),
      },
    }),
  );
}

export function useRotateDestinationSecret() {
  const request = useApiRequest();
  return useDestinationMutation((id: string) =>
    request<{ secret: string }>(`${destinationPath(id)}/rotate-secret`, { method: "POST" }),
  );
}

/** A test delivery: its outcome is the answer (also kept as the destination's last delivery or error). */
export function useTestDestination() {
  const request = useApiRequest();
  return useDestinationMutation((id: string) =>
    request<DestinationTestResult>(`${destinationPath(id)}/test`, { method: "POST" }),
  );
}

export function useDeleteDestination() {
  const request = useApiRequest();
  return useDestinationMutation((id: string) => request<undefined>(destinationPath(id), { method: "DELETE" }));
}
