// The process the kill test kills: `commit ROOT STATE` applies the 20-file
// patch of kill-commit-patch.ts with apply_patch through bunker's change
// pipeline (journal in STATE, as bunker does); `recover ROOT STATE` is what
// bunker does at start in ROOT, printing what it says.
import { join } from "node:path";
import { SessionState } from "../../src/agent/session-state.ts";
import { startChanges } from "../../src/change/start.ts";
import { NoPromptApprover } from "../../src/perms/approver.ts";
import { Permissions } from "../../src/perms/permissions.ts";
import { emptyGrants, Policy } from "../../src/perms/policy.ts";
import { applyPatchTool } from "../../src/tools/apply-patch.ts";
import { killPatch } from "./kill-commit-patch.ts";

const [mode, root, state] = process.argv.slice(2);
if (!root || !state || (mode !== "commit" && mode !== "recover")) throw new Error("usage: kill-commit-child.ts commit|recover ROOT STATE");
const sessionsPath = join(state, "sessions.db");
const said: string[] = [];
const changes = startChanges({ root, sessionsPath }, (line) => said.push(line));
if (mode === "recover") {
  process.stdout.write(said.join("\n") + (said.length ? "\n" : ""));
  process.exit(0);
}
const grants = emptyGrants();
grants.allow.write.workspace = true;
const perms = new Permissions({ policy: new Policy(root, grants), approver: new NoPromptApprover(), notify: () => {} });
const ctx = { root, perms, session: new SessionState(), ui: { info() {}, debug() {} }, signal: new AbortController().signal, changes };
process.stdout.write("ready\n");
const out = await applyPatchTool.run({ patch: killPatch() }, ctx);
process.stdout.write(typeof out === "string" ? `${out}\n` : `${out.content}\n`);
