// ESLint looks for the configuration nearest each file: this folder is a project of its own, so the
// repository's rules apply here with its ignore patterns relative to this folder (.gen/ holds the
// generated bindings).
export { default } from "../../eslint.config.mjs";
