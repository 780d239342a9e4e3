import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The console is served from the same origin as the API (`/api/*`), by `npm start` locally and by CloudFront on AWS.
export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
  server: {
    proxy: {
      "/api": "http://127.0.0.1:3000",
      "/local": "http://127.0.0.1:3000",
      "/console-config.json": "http://127.0.0.1:3000",
    },
  },
});
