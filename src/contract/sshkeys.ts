/** SSH keys of the profile (`/profile/sshkeys`). */
import { z } from "zod";
import { Timestamp, ruled } from "./common";
import { sshKeyLabel, sshPublicKeyText } from "./field-rules";

export const SshKeyLabel = ruled(sshKeyLabel);
export const SshPublicKeyText = ruled(sshPublicKeyText);

export const SshKey = z.object({
  id: z.number().int(),
  label: z.string(),
  ssh_key: z.string(),
  created: Timestamp,
});
export type SshKey = z.infer<typeof SshKey>;

/**
 * The contract marks neither field required; a key without key material is meaningless, so
 * `ssh_key` is required (as upstream answers) and `label` defaults to "".
 */
export const SshKeyCreate = z.object({
  label: SshKeyLabel.optional(),
  ssh_key: SshPublicKeyText,
});
export type SshKeyCreate = z.input<typeof SshKeyCreate>;

/** Only the label can change. */
export const SshKeyUpdate = z.object({
  label: SshKeyLabel,
});
export type SshKeyUpdate = z.input<typeof SshKeyUpdate>;

/**
 * The update body the server accepts: `label`, plus an optional `ssh_key` so that a client
 * sending back the object it read still succeeds. The server refuses an `ssh_key` that
 * differs from the stored key (400 naming `ssh_key`): only the label can change.
 */
export const SshKeyUpdateBody = SshKeyUpdate.extend({
  ssh_key: z.string().optional(),
});
export type SshKeyUpdateBody = z.input<typeof SshKeyUpdateBody>;
