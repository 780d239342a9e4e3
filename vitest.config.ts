import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/service-environment.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two test files at once on the 2-core machines CI runs on (vitest's default there is one: cores − 1). With one,
    // the run used about 1.05 cores on average (986 s user + 144 s system over 1,071 s at f57541a): the files wait on
    // DynamoDB Local, the stream consumer, Chromium and Python more than they compute (docs/testing.md).
    maxWorkers: 2,
    // One log line per request is noise in a green run; failures still show their output.
    silent: "passed-only",
  },
});
