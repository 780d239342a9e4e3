import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// The console's component tests (test/web/*.test.tsx): jsdom, no DynamoDB Local (the root config's global setup
// starts one for the service's tests; these never touch the service).
export default defineConfig({
  plugins: [react()],
  root: decodeURIComponent(new URL("..", import.meta.url).pathname),
  test: {
    include: ["test/web/**/*.test.tsx"],
    environment: "jsdom",
    setupFiles: ["test/web/support/setup.ts"],
    testTimeout: 15_000,
  },
});
