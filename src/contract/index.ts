export * from "./common";
export * from "./profile";
export * from "./sshkeys";
export * from "./sshkey-format";
