/**
 * How much `npm start` logs, settled before any service module reads `LOG_LEVEL` (this module is
 * start.ts's first import). The request log — one line per request, 470 for `npm run demo` — is off by
 * default, so the banner stays in view; `npm start -- --log-requests` (or `LOG_LEVEL=INFO`) turns it on.
 * Warnings and errors are always shown.
 */
export const LOG_REQUESTS_FLAG = "--log-requests";

if (process.argv.includes(LOG_REQUESTS_FLAG)) process.env.LOG_LEVEL = "INFO";
else if (!process.env.LOG_LEVEL) process.env.LOG_LEVEL = "WARN";
