/**
 * Every route of the console. The overview is the first page after sign-in; the agent charts (recharts) load only
 * when an agent is opened, a monitor's when a monitor is.
 */
import { lazy, type ReactNode, Suspense } from "react";
import { Navigate, Route, Routes } from "react-router";
import { RequireAuth } from "./auth/require-auth";
import { Layout } from "./components/Layout";
import { Loading } from "./components/Loading";
import { OrganisationGate } from "./components/OrganisationGate";
import { AuthCallbackPage } from "./pages/AuthCallbackPage";
import { AgentsPage } from "./pages/agents/AgentsPage";
import { AlertsPage } from "./pages/alerts/AlertsPage";
import { ConversationPage } from "./pages/conversations/ConversationPage";
import { ConversationsPage } from "./pages/conversations/ConversationsPage";
import { KeysPage } from "./pages/keys/KeysPage";
import { MembersPage } from "./pages/members/MembersPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { OverviewPage } from "./pages/overview/OverviewPage";
import { PricesPage } from "./pages/prices/PricesPage";
import { SignInPage } from "./pages/SignInPage";
import { ScoreConfigsPage } from "./pages/score-configs/ScoreConfigsPage";
import { SessionDetailPage } from "./pages/sessions/SessionDetailPage";
import { SessionsPage } from "./pages/sessions/SessionsPage";

const AgentDetailPage = lazy(() =>
  import("./pages/agents/AgentDetailPage").then((module) => ({ default: module.AgentDetailPage })),
);

// A monitor's page and form draw its last 72 hours with recharts too: loaded when opened.
const MonitorPage = lazy(() =>
  import("./pages/alerts/MonitorPage").then((module) => ({ default: module.MonitorPage })),
);
const NewMonitorPage = lazy(() =>
  import("./pages/alerts/MonitorFormPage").then((module) => ({ default: module.NewMonitorPage })),
);
const EditMonitorPage = lazy(() =>
  import("./pages/alerts/MonitorFormPage").then((module) => ({ default: module.EditMonitorPage })),
);

function WithCharts({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loading label="Loading charts…" />}>{children}</Suspense>;
}

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/auth/callback" element={<AuthCallbackPage />} />
      <Route
        element={
          <RequireAuth>
            <OrganisationGate>
              <Layout />
            </OrganisationGate>
          </RequireAuth>
        }
      >
        <Route index element={<OverviewPage />} />
        <Route path="/sessions" element={<SessionsPage />} />
        <Route path="/sessions/:id" element={<SessionDetailPage />} />
        <Route path="/conversations" element={<ConversationsPage />} />
        <Route path="/conversations/:id" element={<ConversationPage />} />
        <Route path="/agents" element={<AgentsPage />} />
        <Route
          path="/agents/:name"
          element={
            <Suspense fallback={<Loading label="Loading charts…" />}>
              <AgentDetailPage />
            </Suspense>
          }
        />
        <Route path="/alerts" element={<AlertsPage />} />
        <Route
          path="/alerts/new"
          element={
            <WithCharts>
              <NewMonitorPage />
            </WithCharts>
          }
        />
        <Route
          path="/alerts/:id"
          element={
            <WithCharts>
              <MonitorPage />
            </WithCharts>
          }
        />
        <Route
          path="/alerts/:id/edit"
          element={
            <WithCharts>
              <EditMonitorPage />
            </WithCharts>
          }
        />
        <Route path="/settings/prices" element={<PricesPage />} />
        <Route path="/settings/scores" element={<ScoreConfigsPage />} />
        <Route path="/settings" element={<Navigate to="/settings/keys" replace />} />
        <Route path="/settings/keys" element={<KeysPage />} />
        <Route path="/settings/members" element={<MembersPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
