/**
 * `mgmt`: the command line. Each subcommand is loaded only when used, so `mgmt schema`
 * does not pay for the server and `mgmt serve` does not pay for the provider.
 */
const USAGE = `usage: mgmt <command> [options]

commands:
  serve    run the local Management API (see: mgmt serve --help)
  schema   print the provider schema as 'terraform providers schema -json' does
  docs     write the reference pages (tfplugindocs layout) into a folder (default docs)
  install-provider  install the provider package as a local mirror (see: mgmt install-provider --help)
  plan-report  a pull-request comment or JSON summary from 'show -json PLANFILE'
  drift    refresh-only drift report, optionally with unmanaged objects and import blocks
  policy   check a plan against the account's rules (see: mgmt policy --help)
  init     write a team's infrastructure repository: stack, tests, CI (see: mgmt init --help)
  warm     start the provider once for every engine command of CMD (see: mgmt warm --help)
  version  print the version as JSON
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return (require("./serve") as typeof import("./serve")).runServe(rest);
    case "schema":
      return (require("./schema") as typeof import("./schema")).runSchema(rest);
    case "docs":
      return (require("./docs") as typeof import("./docs")).runDocs(rest);
    case "install-provider":
      return (require("./install-provider") as typeof import("./install-provider")).runInstallProvider(rest);
    case "plan-report":
      return (require("./plan-report") as typeof import("./plan-report")).runPlanReport(rest);
    case "drift":
      return (require("./drift") as typeof import("./drift")).runDrift(rest);
    case "policy":
      return (require("./policy") as typeof import("./policy")).runPolicy(rest);
    case "init":
      return (require("./init") as typeof import("./init")).runInit(rest);
    case "warm":
      return (require("./warm") as typeof import("./warm")).runWarm(rest);
    case "version":
    case "--version": {
      const { parseCommand } = await import("./args");
      const usage = "usage: mgmt version\n\nPrints the provider's version and registry source as JSON.\n\noptions:\n  -h, --help  show this help\n";
      const parsed = parseCommand("version", usage, rest, {});
      if ("exit" in parsed) return parsed.exit;
      const { PROVIDER_VERSION, PROVIDER_SOURCE } = await import("../provider/identity");
      process.stdout.write(`${JSON.stringify({ version: PROVIDER_VERSION, provider_source: PROVIDER_SOURCE })}\n`);
      return 0;
    }
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`mgmt: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`mgmt: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
