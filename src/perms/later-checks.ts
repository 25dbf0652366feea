// What the policy consults only for a write (what runs a written file later:
// runs-later.ts, and the sandbox's git guard, which knows git directories of
// any name, included config files and hooks folders) or for a granted read
// outside the workspace (the credential stores of the sandbox's allow-list).
// policy.ts requires it at the first such decision, so a turn that writes
// nothing and reads only its workspace loads none of it (about 140 KB of
// source, most of src/sandbox).
export { laterQuestions, runsLaterReason } from "./runs-later.ts";
export { gitHooksPath } from "./git-config.ts";
export { gitConfigFiles } from "./startup-files.ts";
export { gitWriteReason, linkedNames, scanRoots, scanWhy } from "../sandbox/git-guard.ts";
export { secretPaths } from "../sandbox/spec.ts";
