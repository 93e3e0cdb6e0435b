/**
 * The stack the upgrade tests apply with a release: every managed resource type, an object
 * adopted with an import block, a token with rotation settings and a tag holding objects. What a
 * release applied is kept beside its state in the corpus, so this builder may grow with later
 * releases without changing what an earlier release was tested with.
 */
import { join } from "node:path";
import { repoPath } from "../../src/harness/paths";
import { PNG_1X1 } from "../support/images";

export const CORPUS_DIR = repoPath("test", "upgrade", "corpus");

/** One release's run on one engine, as kept in the corpus (`<release>-<engine>/`). */
export interface CorpusEntry {
  readonly release: string;
  readonly engine: "tofu" | "terraform";
  /** The SSH key created outside the stack and adopted by its import block. */
  readonly imported: { readonly id: number; readonly key: string };
  readonly laptopKey: string;
  /** Fixture compute instances the tag holds. */
  readonly computes: readonly number[];
}

/** main.tf.json's blocks. `renewBefore` past the token's remaining lifetime makes it due for rotation. */
export function upgradeStack(entry: CorpusEntry, o: { renewBefore?: string } = {}): Record<string, unknown> {
  return {
    resource: {
      mgmt_ssh_key: { laptop: { label: "laptop", ssh_key: entry.laptopKey }, imported: { label: "made elsewhere", ssh_key: entry.imported.key } },
      // Ten years: a corpus replayed long after it was written still holds a live token outside its renewal window.
      mgmt_token: { ci: { label: "ci", scopes: "account:read_only events:read_only", expires_in: "87600h", renew_before: o.renewBefore ?? "720h" } },
      mgmt_oauth_client: { app: { label: "dashboard", redirect_uri: "https://example.com/callback", thumbnail: PNG_1X1, secret_version: 1 } },
      mgmt_tag: { team: { label: "upgrade-team", computes: entry.computes } },
      mgmt_account_contact: { me: { city: "Philadelphia", country: "US", state: "PA", zip: "19106" } },
      mgmt_profile_settings: { me: { timezone: "Europe/Berlin" } },
    },
    import: [{ to: "mgmt_ssh_key.imported", id: String(entry.imported.id) }],
    output: { token: { value: "${mgmt_token.ci.token}", sensitive: true }, client_secret: { value: "${mgmt_oauth_client.app.secret}", sensitive: true } },
  };
}

export const corpusEntryDir = (entry: Pick<CorpusEntry, "release" | "engine">): string => join(CORPUS_DIR, `${entry.release}-${entry.engine}`);
