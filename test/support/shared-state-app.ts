/**
 * A cdktf app whose state lives in Postgres (the engines' `pg` backend), as a team's CI keeps it:
 * the stack names only its schema; the connection string, which carries a password, reaches the
 * engine through PG_CONN_STR at run time and is never synthesized. SHARED_STATE_STACK names the
 * stack (default "shared"); the schema and every label derive from it, so two stacks can share one
 * database and one account without meeting.
 */
import { App, PgBackend, TerraformOutput, TerraformStack, type PgBackendConfig } from "cdktf";
import type { Construct } from "constructs";
import { MgmtProvider } from "../../generated/providers/mgmt/provider";
import { SshKey } from "../../generated/providers/mgmt/ssh-key";
import { Tag } from "../../generated/providers/mgmt/tag";
import { Token } from "../../generated/providers/mgmt/token";

/** Fixed keys: a fresh checkout must synthesize the very same configuration. */
export const SHARED_STATE_KEYS = {
  laptop: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP8Evedj3XFY17sjYOwW2JqZV8Ybt0/vZE7MnZWk8fjf laptop@example",
  ci: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPIWzBszyOAfsl/8zv6DxzYJMmih5nheoaEpP6S2oewF ci@example",
  bastion: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAuq1ZPo8HSZKrzXHAdoILFnPOW3G5sXOowznCv6+Fi4 bastion@example",
} as const;

/** The Postgres schema a stack's state lives in: one per stack, so stacks never share a lock. */
export const stateSchema = (stack: string): string => `state_${stack.replace(/[^a-z0-9]/g, "_")}`;

class SharedStateStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    // PgBackendConfig declares connStr required, yet the engines read PG_CONN_STR when the block
    // has none, which is the only way to keep the password out of cdk.tf.json.
    new PgBackend(this, { schemaName: stateSchema(id) } as PgBackendConfig);
    new MgmtProvider(this, "mgmt", {});

    for (const [name, key] of Object.entries(SHARED_STATE_KEYS)) {
      const created = new SshKey(this, `key_${name}`, { label: `${id}-${name}`, sshKey: key });
      new TerraformOutput(this, `${name}_key_id`, { value: created.id });
    }
    new Tag(this, "team", { label: `${id}-team` });
    const token = new Token(this, "reporting", { label: `${id}-reporting`, scopes: "account:read_only", expiresIn: "2160h" });
    new TerraformOutput(this, "reporting_token_id", { value: token.id });
  }
}

const app = new App();
new SharedStateStack(app, process.env.SHARED_STATE_STACK ?? "shared");
app.synth();
