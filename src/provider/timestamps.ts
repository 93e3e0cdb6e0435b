/** The API's UTC timestamps (no offset) shown in state as RFC 3339, which Terraform functions parse. */
export const toRfc3339 = (apiTimestamp: string): string => (apiTimestamp.endsWith("Z") ? apiTimestamp : `${apiTimestamp}Z`);
