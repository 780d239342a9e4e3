/**
 * `npm run keys -- <command>`: the operator's bootstrap path for API keys.
 *
 *   create --org <org> --name <name> [--environment live|test] [--scopes a,b] [--json]
 *   list   --org <org> [--json]
 *   revoke --id <keyId> [--json]
 *
 * Add `--aws` to work on the deployed table (see cli-database.ts).
 */
import { parseArgs } from "node:util";
import { openCliDatabase } from "./cli-database.js";
import { requiredFlag, runCli, UsageError } from "./cli-program.js";

const USAGE = `Usage:
  npm run keys -- create --org <org> --name <name> [--environment live|test] [--scopes sessions:write,events:write,read] [--json] [--aws]
  npm run keys -- list --org <org> [--json] [--aws]
  npm run keys -- revoke --id <keyId> [--json] [--aws]`;

const OPERATOR = { name: "operator CLI" };

const required = (value: string | undefined, flag: string) => requiredFlag(value, flag, USAGE);

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
      aws: { type: "boolean", default: false },
    },
  });
  const command = positionals[0];
  if (command !== "create" && command !== "list" && command !== "revoke") throw new UsageError(USAGE);

  const database = await openCliDatabase({ aws: values.aws });
  try {
    const { ENVIRONMENTS } = await import("../functions/domain/api-key.js");
    const { isOrganisationId } = await import("../functions/domain/organisation.js");
    const { DEFAULT_SCOPES, isScope } = await import("../functions/domain/scopes.js");
    const store = await import("../functions/store/keys/api-key-store.js");
    const { ensureOrganisation } = await import("../functions/store/members/organisation-store.js");

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
      await ensureOrganisation(orgId);
      const { record, plaintext } = await store.createApiKey(
        { orgId, environment, name, scopes: scopes.filter(isScope) },
        OPERATOR,
      );
      console.log(values.json ? JSON.stringify({ ...record, key: plaintext }) : plaintext);
    } else if (command === "list") {
      const records = await store.listApiKeys(required(values.org, "org"));
      if (values.json) console.log(JSON.stringify(records));
      else
        for (const record of records) {
          const state = record.revokedAt ? `revoked ${record.revokedAt}` : "active";
          console.log(`${record.keyId}  …${record.hint}  ${record.environment}  ${state}  ${record.name}`);
        }
    } else {
      const keyId = required(values.id, "id");
      const orgId = await store.findApiKeyOrganisation(keyId);
      if (orgId === undefined) throw new Error(`API key ${keyId} not found`);
      const record = await store.revokeApiKey(orgId, keyId, OPERATOR);
      console.log(values.json ? JSON.stringify(record) : `revoked ${record.keyId} at ${record.revokedAt}`);
    }
  } finally {
    await database.close();
  }
}

await runCli(run);
