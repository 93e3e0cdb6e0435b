/**
 * The dependency bots' configuration: Renovate (GitHub and GitLab) and Dependabot (GitHub). Both put the
 * @mgmt packages into one pull request, since the bindings accept only their own provider version: a bot
 * that moved one alone would open a pull request whose npm install fails.
 */
import type { ScaffoldContext } from "./context";

export function renovateJson(): string {
  const config = {
    $schema: "https://docs.renovatebot.com/renovate-schema.json",
    extends: ["config:recommended"],
    packageRules: [{ description: "The provider and its bindings move together.", matchPackageNames: ["@mgmt/**"], groupName: "mgmt provider" }],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export function dependabotYml(c: ScaffoldContext): string {
  return `# Dependabot: weekly npm updates, the @mgmt provider and its bindings in one pull request (the bindings
# accept only their own provider version).${c.provider.file !== undefined ? "\n# The packages are vendored in packages/: Dependabot cannot move them; mgmt init --update does." : ""}
# A private registry: add it under "registries" (https://docs.github.com/code-security/dependabot/working-with-dependabot/configuring-access-to-private-registries-for-dependabot).
version: 2
updates:
  - package-ecosystem: npm
    directory: /
    schedule:
      interval: weekly
    groups:
      mgmt:
        patterns:
          - "@mgmt/*"
`;
}
