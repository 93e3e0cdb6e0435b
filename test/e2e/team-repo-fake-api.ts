/**
 * `gh` and `curl` for the CI runs of test/e2e/team-repo.test.ts: logs each call (argv, stdin) and
 * answers the calls the workflows make as GitHub's and GitLab's APIs would, keeping comments, notes
 * and issues in a JSON file (FAKE_API_STATE). Bundled by the test and run as `node THIS gh|curl ARGS`.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

export interface Comment {
  id: number;
  issue: number;
  body: string;
}
export interface Issue {
  number: number;
  title: string;
  state: "open" | "closed";
  labels: string[];
  body: string;
}
export interface FakeApiState {
  calls: { tool: string; argv: string[]; stdin: string }[];
  /** `merged`: the pull request (merge request) each commit of the default branch came from, as the test merged them. */
  github: { comments: Comment[]; issues: Issue[]; merged: Record<string, number> };
  gitlab: { notes: Comment[]; issues: Issue[]; issueNotes: Comment[]; merged: Record<string, number> };
}

export const emptyState = (): FakeApiState => ({
  calls: [],
  github: { comments: [], issues: [], merged: {} },
  gitlab: { notes: [], issues: [], issueNotes: [], merged: {} },
});

/** The value after `flag` in argv, or undefined. */
const option = (argv: string[], ...flags: string[]): string | undefined => {
  const at = argv.findIndex((a) => flags.includes(a));
  return at === -1 ? undefined : argv[at + 1];
};
const nextId = (items: { id?: number; number?: number }[]) => Math.max(0, ...items.map((i) => i.id ?? i.number ?? 0)) + 1;

/** gh's --jq: jq over the answer, raw strings out. */
function jq(value: unknown, expr: string | undefined): string {
  const text = JSON.stringify(value);
  if (expr === undefined) return `${text}\n`;
  const r = spawnSync("jq", ["-r", expr], { input: text, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`jq ${expr}: ${r.stderr}`);
  return r.stdout;
}

function gh(argv: string[], s: FakeApiState): string {
  const [command, sub] = argv;
  if (command === "api") {
    const method = option(argv, "-X", "--method") ?? "GET";
    const path = argv.slice(1).find((a, i, rest) => !a.startsWith("-") && !["-X", "--method", "--jq", "-F", "-f"].includes(rest[i - 1] ?? ""))!;
    const field = option(argv, "-F", "--field");
    const body = field?.startsWith("body=@") ? readFileSync(field.slice("body=@".length), "utf8") : undefined;
    let m: RegExpMatchArray | null;
    if (method === "GET" && (m = path.match(/^repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/))) {
      const issue = Number(m[1]);
      return jq(
        s.github.comments.filter((c) => c.issue === issue).map(({ id, body }) => ({ id, body })),
        option(argv, "--jq"),
      );
    }
    if (method === "GET" && (m = path.match(/^repos\/[^/]+\/[^/]+\/commits\/([0-9a-f]+)\/pulls$/))) {
      const number = s.github.merged[m[1]!];
      return jq(number === undefined ? [] : [{ number, state: "closed" }], option(argv, "--jq"));
    }
    if (method === "POST" && (m = path.match(/^repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/)) && body !== undefined) {
      const comment = { id: nextId(s.github.comments), issue: Number(m[1]), body };
      s.github.comments.push(comment);
      return jq(comment, undefined);
    }
    if (method === "PATCH" && (m = path.match(/^repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/)) && body !== undefined) {
      const comment = s.github.comments.find((c) => c.id === Number(m![1]));
      if (!comment) throw new Error(`no comment ${m[1]}`);
      comment.body = body;
      return jq(comment, undefined);
    }
  }
  if (command === "label" && sub === "create") return "";
  if (command === "issue") {
    if (sub === "list") {
      const state = option(argv, "--state") ?? "open";
      const label = option(argv, "--label");
      const fields = (option(argv, "--json") ?? "number,title").split(",");
      const found = s.github.issues.filter((i) => (state === "all" || i.state === state) && (label === undefined || i.labels.includes(label)));
      return jq(
        found.map((i) => Object.fromEntries(fields.map((f) => [f, (i as unknown as Record<string, unknown>)[f]]))),
        option(argv, "--jq"),
      );
    }
    if (sub === "create") {
      const issue: Issue = {
        number: nextId(s.github.issues),
        title: option(argv, "--title")!,
        state: "open",
        labels: [option(argv, "--label")!].filter(Boolean),
        body: readFileSync(option(argv, "--body-file")!, "utf8"),
      };
      s.github.issues.push(issue);
      return `https://github.example.test/issues/${issue.number}\n`;
    }
    const issue = s.github.issues.find((i) => i.number === Number(argv[2]));
    if (!issue) throw new Error(`no issue ${argv[2]}`);
    if (sub === "edit") {
      issue.body = readFileSync(option(argv, "--body-file")!, "utf8");
      return "";
    }
    if (sub === "close") {
      issue.state = "closed";
      return "";
    }
  }
  throw new Error(`fake gh: no answer for ${argv.join(" ")}`);
}

function curl(argv: string[], s: FakeApiState): string {
  const method = option(argv, "-X") ?? "GET";
  const data = option(argv, "--data", "-d");
  const url = new URL(argv.filter((a, i) => !a.startsWith("-") && !["-X", "--header", "-H", "--data", "-d"].includes(argv[i - 1] ?? "")).at(-1)!);
  const json = (): Record<string, string> => JSON.parse(data!) as Record<string, string>;
  let m: RegExpMatchArray | null;
  if ((m = url.pathname.match(/\/projects\/[^/]+\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/))) {
    const mr = Number(m[1]);
    if (method === "GET") return JSON.stringify(s.gitlab.notes.filter((n) => n.issue === mr).map(({ id, body }) => ({ id, body })));
    if (method === "POST") {
      const note = { id: nextId(s.gitlab.notes), issue: mr, body: json().body! };
      s.gitlab.notes.push(note);
      return JSON.stringify(note);
    }
    const note = s.gitlab.notes.find((n) => n.id === Number(m![2]));
    if (method === "PUT" && note) {
      note.body = json().body!;
      return JSON.stringify(note);
    }
  }
  if (method === "GET" && (m = url.pathname.match(/\/projects\/[^/]+\/repository\/commits\/([0-9a-f]+)\/merge_requests$/))) {
    const iid = s.gitlab.merged[m[1]!];
    return JSON.stringify(iid === undefined ? [] : [{ iid, state: "merged" }]);
  }
  if (method === "POST" && (m = url.pathname.match(/\/projects\/[^/]+\/issues\/(\d+)\/notes$/))) {
    const note = { id: nextId(s.gitlab.issueNotes), issue: Number(m[1]), body: json().body! };
    s.gitlab.issueNotes.push(note);
    return JSON.stringify(note);
  }
  if ((m = url.pathname.match(/\/projects\/[^/]+\/issues(?:\/(\d+))?$/))) {
    const iid = m[1] === undefined ? undefined : Number(m[1]);
    if (method === "GET" && iid === undefined) {
      const state = url.searchParams.get("state") === "opened" ? "open" : undefined;
      const label = url.searchParams.get("labels");
      const found = s.gitlab.issues.filter((i) => (state === undefined || i.state === state) && (label === null || i.labels.includes(label)));
      return JSON.stringify(found.map((i) => ({ iid: i.number, title: i.title, description: i.body })));
    }
    if (method === "POST" && iid === undefined) {
      const { title, labels, description } = json();
      const issue: Issue = { number: nextId(s.gitlab.issues), title: title!, state: "open", labels: labels!.split(","), body: description! };
      s.gitlab.issues.push(issue);
      return JSON.stringify({ iid: issue.number });
    }
    const issue = s.gitlab.issues.find((i) => i.number === iid);
    if (method === "PUT" && issue) {
      if (data === "state_event=close") issue.state = "closed";
      else issue.body = json().description!;
      return JSON.stringify({ iid: issue.number });
    }
  }
  throw new Error(`fake curl: no answer for ${method} ${url.href}`);
}

function main(): void {
  const [tool, ...argv] = process.argv.slice(2);
  const file = process.env.FAKE_API_STATE!;
  const s = JSON.parse(readFileSync(file, "utf8")) as FakeApiState;
  const stdin = argv.includes("-") ? readFileSync(0, "utf8") : "";
  s.calls.push({ tool: tool!, argv, stdin });
  let out: string;
  try {
    out = tool === "gh" ? gh(argv, s) : curl(argv, s);
  } catch (err) {
    writeFileSync(file, JSON.stringify(s, null, 2));
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(tool === "curl" ? 22 : 1);
  }
  writeFileSync(file, JSON.stringify(s, null, 2));
  process.stdout.write(out);
}

if (require.main === module) main();
