/**
 * The provider's log. The plugin hands one in that writes where the engine files it under
 * TF_LOG / TF_LOG_PROVIDER; the provider never knows how. Fields must never hold a secret.
 */
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error";

export type Log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

export const silentLog: Log = () => {};
