/** GET /api/openapi.json: the OpenAPI 3.1 description of this API (public). */
import { publicRoute } from "../http/public-route.js";
import { jsonResponse } from "../http/responses.js";
import { openApiDocument } from "./openapi-document.js";

// Built on the first request and memoised, not at import: cold starts of this function stay cheap.
export const handler = publicRoute("OpenApiDocument", async () => jsonResponse(200, openApiDocument()));
