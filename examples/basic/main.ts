/**
 * The basic example: the SSH keys a team keeps on its account, and the profile they belong to.
 * The provider reads MGMT_URL and MGMT_TOKEN from the environment, so no secret is ever
 * written into the synthesized configuration.
 */
import { App, TerraformOutput, TerraformStack } from "cdktf";
import type { Construct } from "constructs";
import { DataMgmtProfile } from "../../generated/providers/mgmt/data-mgmt-profile";
import { MgmtProvider } from "../../generated/providers/mgmt/provider";
import { SshKey } from "../../generated/providers/mgmt/ssh-key";

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
      sshKey: "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBMckWh/XSyKJbLKcP5vVAQQ5eJjFpXod2qKkCfwLSuIEFPUmMJMSLADV/OtGunQM14FMARHLqkyNVT9Wy9jkK3g= ci@example",
    });

    const me = new DataMgmtProfile(this, "me", {});
    new TerraformOutput(this, "username", { value: me.username });
    new TerraformOutput(this, "laptop_key_id", { value: laptop.id });
  }
}

// cdktf-cli and the main job choose the output folder through CDKTF_OUTDIR, which App reads.
const app = new App();
new AccountStack(app, "basic");
app.synth();
