import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

const root = document.getElementById("root");
if (root !== null) {
  createRoot(root).render(
    <StrictMode>
      <main>
        <h1>Agent Tracking Service</h1>
      </main>
    </StrictMode>,
  );
}
