import react from "@vitejs/plugin-react";
import { defineConfig, type UserConfig } from "vite";

// The console is served from the same origin as the API (`/api/*`), by `npm start` locally and by CloudFront on AWS.
const config: UserConfig = {
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
  server: {
    proxy: {
      "/api": "http://127.0.0.1:3000",
      "/local": "http://127.0.0.1:3000",
      "/console-config.json": "http://127.0.0.1:3000",
    },
  },
};

export default defineConfig(({ command }) => {
  // A build is a production build whoever runs it: under a test runner (NODE_ENV=test, as when the browser tests'
  // `npm start` builds web/dist) Vite and its React plugin would otherwise bundle React's development build and
  // development JSX, 70 % larger and slower than what is deployed.
  if (command === "build") process.env.NODE_ENV = "production";
  return config;
});
