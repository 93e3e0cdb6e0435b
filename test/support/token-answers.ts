import { MgmtClient } from "../../src/client";

/** What the API at `url` answers token value `token` (200 while valid, 401 once revoked): one try, no retries. */
export async function tokenAnswers(url: string, token: string): Promise<number> {
  const c = new MgmtClient({ url, token, retry: { maxRetries: 0 } });
  try {
    await c.getProfile();
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  } finally {
    await c.close();
  }
}
