/**
 * `npm run users -- <command>`: signed-in users for key management.
 *
 *   token --email <e> [--org <org>] [--role owner|admin|member]
 *       Local only: creates the user in the local issuer and the membership
 *       if needed (the first member of an organisation becomes its owner,
 *       later ones members, unless --role says otherwise), and prints a
 *       short-lived access token.
 *   add --org <org> --user-id <sub> --email <e> --role <role> [--aws]
 *       Grants a (Cognito) user a role in an organisation.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openCliDatabase } from "./cli-database.js";
import { requiredFlag, runCli, UsageError } from "./cli-program.js";
import { LocalIdentity } from "./local-identity.js";
import { readLocalJson, readSettings } from "./settings.js";

const USAGE = `Usage:
  npm run users -- token --email <email> [--org <org>] [--role owner|admin|member]
  npm run users -- add --org <org> --user-id <sub> --email <email> --role owner|admin|member [--aws]`;

const required = (value: string | undefined, flag: string) => requiredFlag(value, flag, USAGE);

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      org: { type: "string" },
      role: { type: "string" },
      "user-id": { type: "string" },
      aws: { type: "boolean", default: false },
    },
  });
  const command = positionals[0];
  if (command !== "token" && command !== "add") throw new UsageError(USAGE);
  const email = required(values.email, "email");
  if (command === "add") required(values.org, "org");

  const database = await openCliDatabase({ aws: command === "add" && values.aws });
  try {
    const { isRole } = await import("../functions/domain/membership.js");
    const { isOrganisationId } = await import("../functions/domain/organisation.js");
    const { ensureOrganisation } = await import("../functions/store/members/organisation-store.js");
    const { hasMembers, listUserMemberships, putMembership } = await import(
      "../functions/store/members/membership-store.js"
    );

    if (values.role !== undefined && !isRole(values.role))
      throw new UsageError("--role must be owner, admin or member");
    if (values.org !== undefined && !isOrganisationId(values.org)) {
      throw new UsageError("--org must be a slug: lowercase letters, digits and dashes");
    }
    const role = values.role !== undefined && isRole(values.role) ? values.role : undefined;

    if (command === "add") {
      const orgId = required(values.org, "org");
      await ensureOrganisation(orgId);
      const membership = await putMembership({
        orgId,
        userId: required(values["user-id"], "user-id"),
        email,
        role: role ?? "member",
      });
      console.log(JSON.stringify(membership));
      return;
    }

    const settings = readSettings();
    const identity = LocalIdentity.open(join(settings.dataDirectory, "identity"));
    const user = identity.ensureUser(email);
    if (values.org !== undefined) {
      const orgId = values.org;
      await ensureOrganisation(orgId);
      const current = (await listUserMemberships(user.userId)).find((membership) => membership.orgId === orgId);
      if (current === undefined || (role !== undefined && role !== current.role)) {
        await putMembership({
          orgId,
          userId: user.userId,
          email,
          role: role ?? ((await hasMembers(orgId)) ? "member" : "owner"),
        });
      }
    }
    const issuer = readLocalJson(settings)?.apiUrl ?? `http://127.0.0.1:${settings.port}`;
    console.log(identity.issueAccessToken(user, issuer));
  } finally {
    await database.close();
  }
}

await runCli(run);
