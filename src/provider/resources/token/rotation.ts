/**
 * A token's rotation under `renew_before`: planned as an in-place update, applied as create, record,
 * revoke. The engines' replacement destroys first, and a provider cannot ask for
 * create_before_destroy, so between the two steps nothing would be valid; as an update, the old
 * value works until the new one exists and is in state.
 */
import { formatDay, parseRfc3339 } from "../../../contract/timestamps";
import { PartialApply } from "../../framework/resource";
import type { ObjectValue } from "../../framework/value";

/** The computed attributes a rotation changes: the plan shows them unknown (the id too, which tells the apply it rotates). */
export const ROTATED = ["id", "token", "expiry", "created"] as const;

/** The plan's words for a rotation: why now, in the user's terms (the engines prefix the address). */
export function rotationReason(expiry: string, renewBefore: string): string {
  const at = parseRfc3339(expiry);
  const day = at === undefined ? expiry : formatDay(at);
  return `Rotating the token: expires ${day}, inside renew_before ${renewBefore}`;
}

/**
 * Revokes the old token once the new one exists. The revoke is not cancelled by a stop (the caller
 * passes no signal): the rotation is one step for the engine, which records what the apply answers.
 * Should the revoke fail, the new token is still recorded (PartialApply), and the error names the
 * old one, which stays valid until it expires or is revoked by hand.
 */
export async function revokeAfterRotation(fresh: ObjectValue, revoke: () => Promise<void>, oldId: string | null): Promise<void> {
  try {
    await revoke();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new PartialApply(
      fresh,
      new Error(
        `the new token is recorded, but the old token (id ${oldId ?? "unknown"}) could not be revoked: ${why}. Revoke it with DELETE /profile/tokens/${oldId ?? "<id>"}.`,
      ),
    );
  }
}
