// Builds a real ToolContext over a temp workspace for tool tests: the real
// resolver, policy and Permissions, with a scripted approver.
import { accessSync, constants, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionState } from "../../src/agent/session-state.ts";
import { Permissions } from "../../src/perms/permissions.ts";
import { emptyGrants, Policy, type Grants } from "../../src/perms/policy.ts";
import type { ApprovalAnswer, Approver, PermRequest } from "../../src/perms/types.ts";
import type { ToolContext } from "../../src/tools/tool.ts";
import { remember } from "./temp-dirs.ts";

/** A fresh, realpath'd temp directory, removed when the run ends. */
export function tempDir(prefix = "bunker-test-"): string {
  return remember(realpathSync(mkdtempSync(join(tmpdir(), prefix))));
}

/**
 * A fresh directory that no sandbox shows, for no special reason: not under
 * /tmp, /var/tmp or /dev (private inside it, so a test would pass for the
 * wrong reason), nor a home. /srv or /mnt where this user may write there.
 */
export function unseenDir(prefix = "bunker-unseen-"): string {
  const parent = ["/srv", "/mnt"].find((d) => {
    try {
      accessSync(d, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  });
  if (!parent) console.warn("unseenDir: neither /srv nor /mnt is writable; using the temp dir (sandbox tests then prove less)");
  return realpathSync(mkdtempSync(join(parent ?? tmpdir(), prefix)));
}

/** Answers prompts from a list (or denies when it runs out) and records what was asked. */
export class ScriptedApprover implements Approver {
  readonly interactive: boolean;
  readonly asked: PermRequest[] = [];
  constructor(
    private readonly answers: ApprovalAnswer[] = [],
    interactive = true,
  ) {
    this.interactive = interactive;
  }
  async ask(req: PermRequest): Promise<ApprovalAnswer> {
    this.asked.push(req);
    return this.answers.shift() ?? { answer: "deny" };
  }
}

export interface TestContext extends ToolContext {
  approver: ScriptedApprover;
  notices: string[];
}

export function makeContext(
  root: string,
  opts: { grants?: Grants; answers?: ApprovalAnswer[]; interactive?: boolean; signal?: AbortSignal } = {},
): TestContext {
  const approver = new ScriptedApprover(opts.answers, opts.interactive ?? true);
  const notices: string[] = [];
  const perms = new Permissions({
    policy: new Policy(root, opts.grants ?? emptyGrants()),
    approver,
    notify: (line) => notices.push(line),
  });
  return {
    root,
    perms,
    session: new SessionState(),
    ui: { info: (l) => notices.push(l), debug: () => {} },
    signal: opts.signal ?? new AbortController().signal,
    // Commits are journalled as in bunker, in a state directory of their own.
    changes: { journalDir: join(tempDir("bunker-state-"), "journal") },
    approver,
    notices,
  };
}

/** A workspace holding one file, `name` with `content`, that the model has read (as it must before replacing it). */
export function workspaceWithRead(name: string, content: string | Uint8Array, opts: Parameters<typeof makeContext>[1] = {}): { root: string; file: string; ctx: TestContext } {
  const root = tempDir();
  const file = join(root, name);
  writeFileSync(file, content);
  const ctx = makeContext(root, opts);
  ctx.session.recordRead(file, readFileSync(file));
  return { root, file, ctx };
}
