// What tools hold: resolve a path through the workspace resolver, then ask
// the policy, then (only if the policy says "ask") the approver. Remembers
// session grants and denials so the person is not asked the same thing twice.
import { ToolError } from "../tools/tool.ts";
import { Policy } from "./policy.ts";
import { askDetails, commandCoveredByPrefixes } from "./run-policy.ts";
import type { Approver, PermKind, PermRequest } from "./types.ts";
import { PathError, resolvePath, type ResolvedPath } from "./workspace.ts";

export class PermissionDenied extends ToolError {
  override name = "PermissionDenied";
}

export interface PermissionsOptions {
  policy: Policy;
  approver: Approver;
  /** Where a denial is also shown to the person (stderr line). */
  notify: (line: string) => void;
  /** Called for a write that goes ahead without a prompt (a flag, rule or session grant), so the person still sees the change. */
  onAutoAllowed?: (req: PermRequest) => void;
}

export class Permissions {
  readonly root: string;
  readonly policy: Policy;
  private readonly approver: Approver;
  private readonly notify: (line: string) => void;
  private readonly onAutoAllowed: ((req: PermRequest) => void) | undefined;
  /** "kind\0target" granted for the session by the person. */
  private readonly sessionTargets = new Set<string>();
  private readonly sessionKinds = new Set<PermKind>();
  /** Every denial of this run, in order, as told to the model (headless json lists them). */
  readonly denials: string[] = [];
  /** "kind\0target" the person refused: not asked again this session. */
  private readonly refused = new Map<string, string>();

  constructor(opts: PermissionsOptions) {
    this.policy = opts.policy;
    this.root = opts.policy.root;
    this.approver = opts.approver;
    this.notify = opts.notify;
    this.onAutoAllowed = opts.onAutoAllowed;
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

  /**
   * Early check for a write target, before the tool does the work of
   * computing a diff: refuses paths that no answer could allow.
   */
  precheckWrite(path: ResolvedPath): void {
    const d = this.policy.decide("write", path.real);
    if (d.verdict === "deny") this.deny(d.reason ?? `writing ${path.display} is denied`);
  }

  /** Throws PermissionDenied unless the request is allowed (asking when needed). */
  async authorize(req: PermRequest): Promise<void> {
    const targets = [req.target, ...(req.alsoTargets ?? [])];
    let mustAsk = false;
    for (const target of targets) {
      const d = this.policy.decide(req.kind, target);
      if (d.verdict === "deny") this.deny(d.reason ?? `${req.kind} ${target} is denied`);
      if (d.verdict === "ask" && !this.grantedForSession(req.kind, target)) mustAsk = true;
    }
    if (!mustAsk) {
      if (req.kind === "write" && req.files?.length) this.onAutoAllowed?.(req);
      return;
    }

    // A refused write is remembered with its content: after "No, do X instead"
    // the model's different edit to the same file must still be asked.
    const change = req.kind === "write" && req.files ? `\0${Bun.hash(req.files.map((f) => f.diff).join("\0"))}` : "";
    const key = `${req.kind}\0${targets.join("\0")}${change}`;
    const earlier = this.refused.get(key);
    if (earlier !== undefined) this.deny(`the person already refused this in this session${earlier ? `: ${earlier}` : ""}. Do not retry it; ask them or take another approach`);

    if (!this.approver.interactive) {
      if (req.kind === "write" && targets.some((t) => this.policy.isProtectedPath(t))) {
        this.deny(`${describe(req)} needs approval: writes into .git/ and .bunker/ always ask, even under --allow-write or -A, and bunker is not asking (no terminal or --no-prompt). Run bunker in a terminal without --no-prompt to approve it`);
      }
      const hint = this.policy.grantHint(req.kind, req.target);
      this.deny(`${describe(req)} needs approval, and bunker is not asking (no terminal or --no-prompt). To grant it, run bunker with ${hint}`);
    }

    if (req.kind === "run" && req.run) {
      // Offer the prefix of what is not yet covered, and say why the line is asked about.
      const { prefix, reasons } = askDetails(req.target, this.sessionPrefixes(), this.root, this.policy.grants, this.policy.runOptions);
      req = { ...req, run: { ...req.run, prefix, reasons } };
    }
    const answer = await this.approver.ask(req);
    switch (answer.answer) {
      case "once":
        return;
      case "target-session":
        for (const t of targets) this.sessionTargets.add(`${req.kind}\0${req.kind === "run" ? (req.run?.prefix ?? t) : t}`);
        return;
      case "kind-session":
        this.sessionKinds.add(req.kind);
        return;
      case "deny": {
        const feedback = answer.feedback?.trim() ?? "";
        this.refused.set(key, feedback);
        const reason = feedback ? `The person refused ${describe(req)} and said: ${feedback}` : `The person refused ${describe(req)}.`;
        this.denials.push(reason);
        throw new PermissionDenied(reason);
      }
    }
  }

  private grantedForSession(kind: PermKind, target: string): boolean {
    // Session-wide grants never cover protected paths: those ask every time.
    if (this.sessionKinds.has(kind) && !(kind === "write" && this.policy.isProtectedPath(target))) return true;
    if (kind === "run") return commandCoveredByPrefixes(target, this.sessionPrefixes(), this.root, this.policy.grants, this.policy.runOptions);
    return this.sessionTargets.has(`${kind}\0${target}`);
  }

  /** /clear: a new conversation starts without the old one's refusals (what was allowed stays allowed). */
  forgetRefusals(): void {
    this.refused.clear();
  }

  /** Command prefixes the person allowed for the session. */
  private sessionPrefixes(): string[] {
    return [...this.sessionTargets].filter((k) => k.startsWith("run\0")).map((k) => k.slice(4));
  }

  private deny(reason: string): never {
    this.denials.push(reason);
    this.notify(reason);
    throw new PermissionDenied(reason);
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
