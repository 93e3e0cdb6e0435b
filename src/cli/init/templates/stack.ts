/** main.ts: one stack with each resource type the provider manages, and the outputs a team reads. */
import { cdkModule, synthScript } from "./cdk";
import type { ScaffoldContext } from "./context";

/** The id of the child construct that marks the generated example (example.test.ts looks for it). */
export const EXAMPLE_MARKER = "mgmt-init-example";

function backend(c: ScaffoldContext): string {
  if (c.backend === "local") {
    return `    // State in a file beside this one (terraform.${c.stack}.tfstate, git-ignored: it holds the secrets below).
    // A CI plan against it starts from nothing: share it first (README.md, "Sharing state").
`;
  }
  return `    // State in Postgres. The connection string carries a password, so it is never written here: the
    // engine reads PG_CONN_STR from its environment (a CI secret; your own for local runs).
    const state = new PgBackend(this, { connStr: "", schemaName: "${c.stack}" });
    state.addOverride("conn_str", undefined);
`;
}

export function mainTs(c: ScaffoldContext): string {
  const cdkImports = c.backend === "pg" ? "App, Aspects, PgBackend, TerraformOutput, TerraformStack" : "App, Aspects, TerraformOutput, TerraformStack";
  return `/**
 * The account as code: one stack with each kind of object the mgmt provider manages. The provider
 * reads MGMT_URL and MGMT_TOKEN from the environment, so no credential is written into the
 * synthesized configuration; the secrets the stack creates are sensitive outputs.
 */
import { ${cdkImports} } from "${cdkModule(c)}";
import { Construct } from "constructs";
import { accountContact, dataMgmtProfile, oauthClient, profileSettings, provider, sshKey, tag, token } from "${c.bindings.name}";
import { MgmtPolicy } from "${c.bindings.name}/lib/policy";
// After \`mgmt drift --unmanaged --import-out imports.ts\`: adopt what the account has and no code manages.
// import { importUnmanaged } from "./imports";
import { importOnlyWhatExists } from "./live-imports";

export class AccountStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    // The account's rules (mgmt-policy.json) at synth: a violation at error severity fails the synth, naming
    // the construct and the rule. The plan job checks the plan against the same file, values and all.
    Aspects.of(this).add(new MgmtPolicy());
    new provider.MgmtProvider(this, "mgmt", {});
${backend(c)}
    // Your own public key (the contents of ~/.ssh/id_ed25519.pub): the private half never leaves your machine.
    const laptop = new sshKey.SshKey(this, "laptop", {
      label: "laptop",
      sshKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP8Evedj3XFY17sjYOwW2JqZV8Ybt0/vZE7MnZWk8fjf laptop@example",
    });

    // A read-only token for a reporting job, replaced by any apply in the last 30 days of its 90.
    const reporting = new token.Token(this, "reporting", {
      label: "reporting",
      scopes: "account:read_only events:read_only",
      expiresIn: "2160h",
      renewBefore: "720h",
    });

    // Your dashboard's callback URL. Increment secretVersion to rotate the client's secret.
    const dashboard = new oauthClient.OauthClient(this, "dashboard", {
      label: "Team dashboard",
      redirectUri: "https://dashboard.example.com/oauth/callback",
      secretVersion: 1,
    });

    const team = new tag.Tag(this, "team", { label: "team-platform" });

    // The example's own marker, with the example's objects: __tests__/example.test.ts checks the example only
    // while the stack has this child. It synthesizes nothing; replace it along with the example.
    new Construct(this, "${EXAMPLE_MARKER}");

    // The account's billing contact and your profile's settings: these always exist, so the stack
    // adopts them (a destroy forgets them rather than deleting). Use your own details.
    new accountContact.AccountContact(this, "contact", { email: "billing@example.com", country: "US", state: "PA", zip: "19106" });
    new profileSettings.ProfileSettings(this, "settings", { timezone: "Europe/Berlin" });

    // importUnmanaged(this);

    const me = new dataMgmtProfile.DataMgmtProfile(this, "me", {});
    new TerraformOutput(this, "username", { value: me.username });
    new TerraformOutput(this, "laptop_key_id", { value: laptop.id });
    new TerraformOutput(this, "team_tag", { value: team.label });
    new TerraformOutput(this, "reporting_token_id", { value: reporting.id });
    new TerraformOutput(this, "reporting_token", { value: reporting.token, sensitive: true });
    new TerraformOutput(this, "dashboard_client_id", { value: dashboard.id });
    new TerraformOutput(this, "dashboard_client_secret", { value: dashboard.secret, sensitive: true });

    // Last: import blocks only for objects the account still has; after a destroy, in a new account
    // or in the tests' throwaway API the others are created (README.md, "Adopted objects").
    importOnlyWhatExists(this);
  }
}

// Synthesized when run (${synthScript(c)}), not when a test imports the class.
if (require.main === module) {
  const app = new App();
  new AccountStack(app, "${c.stack}");
  app.synth();
}
`;
}
