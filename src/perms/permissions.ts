// What tools hold: resolve a path through the workspace resolver, then ask
// the policy (the one place that decides, session grants included), then
// (only if the policy says "ask") the approver. The person's session answers
// are handed back to the policy; refusals are remembered here so the person
// is not asked the same thing twice.
import { relative } from "node:path";
import { grantedReadPaths, hardLinkCheck } from "../sandbox/denied-files.ts";
import { ToolError } from "../tools/tool.ts";
import { loadRunJudge, Policy, type Decision, type SandboxNeeds } from "./policy.ts";
import type { CommandDecision } from "./run/evaluate.ts";
import type { Approver, PermKind, PermRequest } from "./types.ts";
import { PathError, resolvePath, type ResolvedPath } from "./workspace.ts";

export class PermissionDenied extends ToolError {
  override name = "PermissionDenied";
}

/** One refusal of this run, as told to the model (headless json lists them as permission_denials). */
export interface Denial {
  /** The tool refused (named as in claude -p's permission_denials). */
  tool_name: string;
  kind: PermKind;
  target: string;
  message: string;
  /** For commands: each simple command, what granted it or why it was not. */
  commands?: CommandDecision[];
}

export interface PermissionsOptions {
  policy: Policy;
  approver: Approver;
  /** Where a denial is also shown to the person (stderr line). */
  notify: (line: string) => void;
  /**
   * Called for a write decided without a prompt, so the person still sees the change: one that goes ahead (a flag,
   * rule or session grant), or one refused because bunker is not asking (--no-prompt), shown before the refusal.
   */
  onUnasked?: (req: PermRequest) => void;
  /** Awaited before a command is judged: what the judgement depends on that start-up does not load (the sandbox probe). */
  beforeRun?: () => Promise<void>;
}

export class Permissions {
  readonly root: string;
  readonly policy: Policy;
  private readonly approver: Approver;
  private readonly notify: (line: string) => void;
  private readonly onUnasked: ((req: PermRequest) => void) | undefined;
  private readonly beforeRun: (() => Promise<void>) | undefined;
  /** Every denial of this run, in order. */
  readonly denials: Denial[] = [];
  /** "kind\0target" the person refused: not asked again until they send their next message (or /clear). */
  private readonly refused = new Map<string, string>();

  constructor(opts: PermissionsOptions) {
    this.policy = opts.policy;
    this.root = opts.policy.root;
    this.approver = opts.approver;
    this.notify = opts.notify;
    this.onUnasked = opts.onUnasked;
    this.beforeRun = opts.beforeRun;
  }

  /** Resolve a path the model gave, turning resolver errors into tool errors. */
  resolve(input: string): ResolvedPath {
    try {
      return resolvePath(this.root, input);
    } catch (err) {
      if (err instanceof PathError) throw new ToolError(`${err.message}: ${JSON.stringify(input)}`);
      throw err;
    }
  }

  /** Resolve and authorize a read in one step: what every reading tool calls first. */
  async resolveRead(input: string, tool: string): Promise<ResolvedPath> {
    const path = this.resolve(input);
    await this.authorize({ kind: "read", target: path.real, tool });
    return path;
  }

  /** A fresh check (the disk changes between calls) of whether a path is a hard link to a file the deny-read rules deny. */
  hardLinkCheck(): (path: string) => string | null {
    const deny = this.policy.grants.deny.read;
    return hardLinkCheck(deny, [this.root, ...grantedReadPaths(this.policy.grants)]);
  }

  /**
   * Early check for a write target, before the tool does the work of
   * computing a diff: refuses paths that no answer could allow.
   */
  precheckWrite(path: ResolvedPath, tool = "write"): void {
    const d = this.policy.decide("write", path.real);
    if (d.verdict === "deny") this.deny({ kind: "write", target: path.real, tool }, d.reason ?? `writing ${path.display} is denied`, d);
  }

  /**
   * Throws PermissionDenied unless the request is allowed (asking when
   * needed). Returns the policy's decision for the request's target (for a
   * command: the whole evaluation, which run_bash reads for the sandbox).
   */
  async authorize(req: PermRequest): Promise<Decision> {
    if (req.kind === "run") {
      await loadRunJudge();
      await this.beforeRun?.();
    }
    const targets = [req.target, ...(req.alsoTargets ?? [])];
    let mustAsk = false;
    // A loop, not .map: a read-only headless turn calls none (jit.ts).
    const decisions: Decision[] = [];
    for (const target of targets) {
      const d = this.policy.decide(req.kind, target);
      if (d.verdict === "deny") this.deny(req, d.reason ?? `${req.kind} ${target} is denied`, d);
      if (d.verdict === "ask") mustAsk = true;
      decisions.push(d);
    }
    // A denied file under another name (a hard link) is the denied file: the policy sees names, this sees the file.
    if (req.kind === "read") {
      const check = this.hardLinkCheck();
      for (const target of targets) {
        const link = check(target);
        if (link) this.deny(req, link);
      }
    }
    const first = decisions[0]!;
    // Work that is not bunker's to undo (a hand edit a forced take-back would overwrite) is asked about whatever is granted.
    if (req.kind === "write" && req.loses) mustAsk = true;
    // A change that runs later by what it changes (package.json's lint-staged key), whatever is granted.
    if (req.kind === "write" && req.changesRunLater?.length) mustAsk = true;
    if (!mustAsk) {
      if (req.kind === "write" && req.files?.length) this.onUnasked?.(req);
      return first;
    }

    // A refused write is remembered with its content: after "No, do X instead"
    // the model's different edit to the same file must still be asked.
    const change = req.kind === "write" && req.files ? `\0${Bun.hash(req.files.map((f) => f.diff).join("\0"))}` : "";
    const key = `${req.kind}\0${targets.join("\0")}${change}`;
    // The person's own /undo is theirs to ask for again; the model's retries are refused without asking.
    const earlier = req.byPerson ? undefined : this.refused.get(key);
    if (earlier !== undefined) this.deny(req, `the person already refused this${earlier ? `: ${earlier}` : ""}. Do not retry it; ask them or take another approach`, first, `Not asked again: you refused ${refusedWhat(req)} earlier in this turn.`);

    const protectedFiles = req.kind === "write" ? [...this.protectedFiles(targets), ...(req.changesRunLater ?? [])] : [];
    if (!this.approver.interactive) {
      // What would have been asked about is shown, then refused: the person sees what the flag would let through.
      if (req.kind === "write" && req.files?.length) this.onUnasked?.(req);
      if (req.kind === "write" && req.loses) {
        this.deny(req, `${req.loses}. bunker asks before overwriting changes it did not make, and it is not asking (no terminal or --no-prompt): run it in a terminal to see what would be lost and confirm, or save those changes elsewhere first`, first);
      }
      if (protectedFiles.length > 0) {
        const whys = protectedFiles.map((p) => `${p.display}: ${p.why}`).join("; ");
        this.deny(req, `${describe(req)} needs approval (${whys}). Such writes always ask, even under --allow-write or -A, and bunker is not asking (no terminal or --no-prompt). Run bunker in a terminal without --no-prompt to approve it`, first);
      }
      // A read outside the workspace, refused as it always was: the reason names the flag (new user's N12-11).
      if (req.kind === "read" && first.outside && first.reason) this.deny(req, first.reason, first);
      // Loaded here: only a refused host is looked at for letters that pass for others.
      const careful = req.kind === "net" ? (await import("../ui/mixed-scripts.ts")).hostWarning(req.target) : "";
      this.deny(req, `${describe(req)} needs approval, and bunker is not asking (no terminal or --no-prompt).${careful} To grant it, run bunker with ${first.hint ?? this.policy.grantHint(req.kind, req.target)}`, first);
    }

    if (req.kind === "run" && req.run && first.run) {
      // Offer the prefix of what is not yet covered, and say why the line is asked about.
      req = { ...req, run: { ...req.run, prefixes: first.run.prefixes, saves: first.run.saves, reasons: first.run.reasons } };
    }
    if (req.kind === "run" && req.run) {
      // What the sandbox would keep from the line (a path outside, .git read-only): said and offered before the yes (N12-09, N12-15).
      // Loaded here: only a command that is asked about needs it (a read-only headless turn loads none: jit.ts).
      const { sandboxNeeds } = await import("./sandbox-needs.ts");
      const needs = sandboxNeeds(req.target, this.root, this.policy, first.run?.parsed);
      if (needs.reads.length > 0 || needs.gitWrite) req = { ...req, run: { ...req.run, needs } };
    }
    // A read outside: the folder "for this session" grants, as the question names it.
    if (req.kind === "read" && first.outside) {
      const { isFolder, readFolder } = await import("./sandbox-needs.ts");
      req = { ...req, readOutside: { folder: readFolder(req.target, this.root), dir: isFolder(req.target) } };
    }
    if (protectedFiles.length > 0) req = { ...req, protectedFiles };
    const answer = await this.approver.ask(req);
    const needs = req.run?.needs;
    switch (answer.answer) {
      case "once":
        return { ...first, approvedAtQuestion: true, ...(needs ? { sandboxOnce: needs } : {}) };
      case "needs-session":
        if (needs) this.grantNeeds(needs);
        return { ...first, approvedAtQuestion: true };
      case "target-session":
        if (needs) this.grantNeeds(needs);
        // A read outside for the session: its folder (or the file) joins the read grants, which the sandbox shows commands too.
        if (req.kind === "read" && req.readOutside) {
          this.policy.grantSessionRead(req.readOutside.folder ?? req.target);
          return { ...first, approvedAtQuestion: true };
        }
        // "Always allow" grants the session the rules it showed (an exact `rm -rf build`), never the wider prefix (`rm`).
        if (req.kind === "run" && answer.runRules) this.policy.grantSessionRules(answer.runRules);
        else if (req.kind === "run") for (const p of req.run?.prefixes ?? []) this.policy.grantSession("run", p);
        else for (const t of targets) this.policy.grantSession(req.kind, t);
        return { ...first, approvedAtQuestion: true };
      case "kind-session":
        this.policy.grantKindForSession(req.kind);
        return { ...first, approvedAtQuestion: true };
      case "withdrawn": {
        // Not remembered as a refusal: the person never answered it, and may well say yes next time.
        const reason = `The question about ${describe(req)} was withdrawn before the person answered: ${answer.why}.`;
        this.record(req, reason, first);
        throw new PermissionDenied(reason, { shown: `Withdrawn before you answered: ${answer.why}.` });
      }
      case "deny": {
        const feedback = answer.feedback?.trim() ?? "";
        if (!req.byPerson) this.refused.set(key, feedback);
        const reason = feedback ? `The person refused ${describe(req)} and said: ${feedback}` : `The person refused ${describe(req)}.`;
        this.record(req, reason, first);
        // The model reads about "the person"; the person reads their own answer (the words they typed are above it).
        // Escape, and the person's own /undo (yes or no only): the closed question already shows the answer.
        if (answer.stopsTurn || req.byPerson) throw new PermissionDenied(reason, { shown: "" });
        throw new PermissionDenied(reason, { shown: `You refused ${refusedWhat(req)}${feedback ? "; Claude was told why" : ""}.` });
      }
    }
  }

  /** The sandbox grants a command's question offered, for the rest of the session. */
  private grantNeeds(needs: SandboxNeeds): void {
    for (const p of needs.reads) this.policy.grantSessionRead(p);
    if (needs.gitWrite) this.policy.grantSessionGitWrite();
  }

  /** The targets a write always asks about, each with what runs it. */
  private protectedFiles(targets: string[]): { display: string; why: string }[] {
    return targets.flatMap((t) => {
      const why = this.policy.protectedReason(t);
      return why ? [{ display: relative(this.root, t) || ".", why }] : [];
    });
  }

  /**
   * The person speaks again (a new message, /clear): they may have changed
   * their mind, so what they refused is asked again. Within a turn the model's
   * retries of a refused change are still refused without asking. What was
   * allowed stays allowed.
   */
  forgetRefusals(): void {
    this.refused.clear();
  }

  private record(req: Pick<PermRequest, "kind" | "target" | "tool">, message: string, d?: Decision): void {
    this.denials.push({ tool_name: req.tool, kind: req.kind, target: req.target, message, ...(d?.run?.commands.length ? { commands: d.run.commands } : {}) });
  }

  private deny(req: Pick<PermRequest, "kind" | "target" | "tool">, reason: string, d?: Decision, shown?: string): never {
    this.record(req, reason, d);
    this.notify(reason);
    throw new PermissionDenied(reason, shown === undefined ? {} : { shown });
  }
}

/** What the person refused, in their words: shown right under the question they answered. */
function refusedWhat(req: PermRequest): string {
  switch (req.kind) {
    case "read":
      return "this read";
    case "write":
      return (req.files?.length ?? 1) > 1 ? "these changes" : "this change";
    case "run":
      return "this command";
    case "net":
      return `network access to ${req.target}`;
    case "mcp":
      return "this call";
  }
}

function describe(req: PermRequest): string {
  switch (req.kind) {
    case "read":
      return `reading ${req.target}`;
    case "write":
      return `writing ${req.files?.map((f) => f.display).join(", ") || req.target}`;
    case "run":
      return `running \`${req.target}\``;
    case "net":
      return `network access to ${req.target}`;
    case "mcp":
      return `calling the MCP tool ${req.target}`;
  }
}
