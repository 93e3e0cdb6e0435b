/** A valid Profile body, as the API answers it, for scripted servers. */
export const PROFILE = {
  authentication_type: "password",
  authorized_keys: null,
  email: "ops@example.com",
  email_notifications: true,
  ip_whitelist_enabled: false,
  lish_auth_method: "keys_only",
  referrals: { code: "abc", completed: 0, credit: 0, pending: 0, total: 0, url: "https://example.com/r/abc" },
  restricted: false,
  timezone: "UTC",
  two_factor_auth: false,
  uid: 42,
  user_type: "default",
  username: "ops",
  verified_phone_number: null,
};
