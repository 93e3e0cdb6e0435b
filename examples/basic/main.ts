/**
 * The basic example: what a team keeps of its account in code. Two SSH keys, a rotating
 * read-only token for a reporting job, an OAuth client for a dashboard, a tag, the account's
 * contact details and the profile's settings, plus the profile they belong to. The provider
 * reads MGMT_URL and MGMT_TOKEN from the environment, so no secret is ever written into the
 * synthesized configuration; the secrets the stack creates are sensitive outputs.
 */
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { AccountContact } from "../../generated/providers/mgmt/account-contact";
import { DataMgmtProfile } from "../../generated/providers/mgmt/data-mgmt-profile";
import { OauthClient } from "../../generated/providers/mgmt/oauth-client";
import { ProfileSettings } from "../../generated/providers/mgmt/profile-settings";
import { MgmtProvider } from "../../generated/providers/mgmt/provider";
import { SshKey } from "../../generated/providers/mgmt/ssh-key";
import { Tag } from "../../generated/providers/mgmt/tag";
import { Token } from "../../generated/providers/mgmt/token";

export class AccountStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new MgmtProvider(this, "mgmt", {});

    const laptop = new SshKey(this, "laptop", {
      label: "laptop",
      sshKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP8Evedj3XFY17sjYOwW2JqZV8Ybt0/vZE7MnZWk8fjf laptop@example",
    });
    new SshKey(this, "ci", {
      label: "ci-deploy",
      sshKey:
        "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBMckWh/XSyKJbLKcP5vVAQQ5eJjFpXod2qKkCfwLSuIEFPUmMJMSLADV/OtGunQM14FMARHLqkyNVT9Wy9jkK3g= ci@example",
    });

    // Rotated by any apply in the last 30 days of its 90.
    const reporting = new Token(this, "reporting", {
      label: "reporting",
      scopes: "account:read_only events:read_only",
      expiresIn: "2160h",
      renewBefore: "720h",
    });

    const dashboard = new OauthClient(this, "dashboard", {
      label: "Team dashboard",
      redirectUri: "https://dashboard.example.com/oauth/callback",
      secretVersion: 1,
    });

    new Tag(this, "platform", { label: "team-platform" });

    new AccountContact(this, "contact", { email: "billing@example.com", country: "US", state: "PA", zip: "19106" });
    new ProfileSettings(this, "settings", { timezone: "Europe/Berlin" });

    const me = new DataMgmtProfile(this, "me", {});
    new TerraformOutput(this, "username", { value: me.username });
    new TerraformOutput(this, "laptop_key_id", { value: laptop.id });
    new TerraformOutput(this, "reporting_token_id", { value: reporting.id });
    new TerraformOutput(this, "reporting_token_expiry", { value: reporting.expiry });
    new TerraformOutput(this, "reporting_token", { value: reporting.token, sensitive: true });
    new TerraformOutput(this, "dashboard_client_id", { value: dashboard.id });
    new TerraformOutput(this, "dashboard_client_secret", { value: dashboard.secret, sensitive: true });
  }
}

// cdktf-cli and the main job choose the output folder through CDKTF_OUTDIR, which App reads.
const app = new App();
new AccountStack(app, "basic");
app.synth();
