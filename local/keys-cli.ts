/**
 * `npm run keys -- <command>`: the operator's bootstrap path for API keys.
 *
 *   create --org <org> --name <name> [--environment live|test] [--scopes a,b] [--json]
 *   list   --org <org> [--json]
 *   revoke --id <keyId> [--json]
 *
 * Uses DYNAMODB_ENDPOINT, else the DynamoDB of a running `npm start`
 * (from $DATA_DIR/local.json), else starts DynamoDB Local on $DATA_DIR for
 * the duration of the command.
 */
import { parseArgs } from "node:util";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { createLocalDynamoClient } from "./dynamo-endpoint.js";
import { openLocalDatabase } from "./local-database.js";
import { readLocalJson, readSettings } from "./settings.js";

const USAGE = `Usage:
  npm run keys -- create --org <org> --name <name> [--environment live|test] [--scopes sessions:write,events:write,read] [--json]
  npm run keys -- list --org <org> [--json]
  npm run keys -- revoke --id <keyId> [--json]`;

class UsageError extends Error {}

async function isReachable(endpoint: string): Promise<boolean> {
  const client = createLocalDynamoClient(endpoint);
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`Missing --${flag}`);
  return value;
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: "string" },
      name: { type: "string" },
      id: { type: "string" },
      environment: { type: "string", default: "live" },
      scopes: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const command = positionals[0];
  if (command !== "create" && command !== "list" && command !== "revoke") throw new UsageError(USAGE);

  const settings = readSettings();
  const running = readLocalJson(settings)?.dynamodbEndpoint;
  const endpoint = settings.dynamodbEndpoint ?? (running && (await isReachable(running)) ? running : undefined);
  const database = await openLocalDatabase(settings, endpoint);
  try {
    const { ENVIRONMENTS } = await import("../functions/domain/api-key.js");
    const { isOrganisationId } = await import("../functions/domain/organisation.js");
    const { DEFAULT_SCOPES, isScope } = await import("../functions/domain/scopes.js");
    const { createApiKey, listApiKeys, revokeApiKey } = await import("../functions/store/api-key-store.js");
    const { ensureOrganisation } = await import("../functions/store/organisation-store.js");

    if (command === "create") {
      const orgId = required(values.org, "org");
      if (!isOrganisationId(orgId)) throw new UsageError("--org must be a slug: lowercase letters, digits and dashes");
      const name = required(values.name, "name");
      const environment = ENVIRONMENTS.find((candidate) => candidate === values.environment);
      if (environment === undefined) throw new UsageError("--environment must be live or test");
      const scopes =
        values.scopes === undefined ? DEFAULT_SCOPES : values.scopes.split(",").map((scope) => scope.trim());
      const unknown = scopes.filter((scope) => !isScope(scope));
      if (unknown.length > 0) throw new UsageError(`Unknown scope(s): ${unknown.join(", ")}`);
      const organisation = await ensureOrganisation(orgId);
      const { record, plaintext } = await createApiKey({
        orgId,
        environment,
        name,
        scopes: scopes.filter(isScope),
        retentionDays: organisation.retentionDays,
        createdBy: "operator CLI",
      });
      console.log(values.json ? JSON.stringify({ ...record, key: plaintext }) : plaintext);
    } else if (command === "list") {
      const records = await listApiKeys(required(values.org, "org"));
      if (values.json) console.log(JSON.stringify(records));
      else
        for (const record of records) {
          const state = record.revokedAt ? `revoked ${record.revokedAt}` : "active";
          console.log(`${record.keyId}  …${record.hint}  ${record.environment}  ${state}  ${record.name}`);
        }
    } else {
      const record = await revokeApiKey(required(values.id, "id"));
      console.log(values.json ? JSON.stringify(record) : `revoked ${record.keyId} at ${record.revokedAt}`);
    }
  } finally {
    await database.stop();
  }
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
