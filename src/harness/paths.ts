import { join, resolve } from "node:path";

/** The repository root, whether running from src/ (tests) or dist/ (bundles). */
export const repoRoot = (): string => resolve(__dirname, "..", __dirname.endsWith("dist") ? "" : "..");
export const repoPath = (...parts: string[]): string => join(repoRoot(), ...parts);
