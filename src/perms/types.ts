// Shared permission vocabulary: what is asked, and what the answer can be.

export type PermKind = "read" | "write" | "run" | "net" | "mcp";

/** One file's change, as shown before a write is approved. */
export interface FileChangePreview {
  /** Workspace-relative (or absolute when outside). */
  display: string;
  /** Unified diff text (uncoloured); the approver colours and bounds it. */
  diff: string;
  added: number;
  removed: number;
  kind: "create" | "modify" | "delete" | "rename";
}

export interface RunPreview {
  command: string;
  cwd: string;
  sandboxed: boolean;
  network: boolean;
  /** Without the whole network: granted hosts through bunker's proxy, others asked about (a sandboxed command). */
  proxied?: boolean;
  /**
   * The prefixes offered for "don't ask again for … commands", one for each simple command not yet covered
   * that a prefix covers safely (set by Permissions when it asks; none offers no such option).
   */
  prefixes?: string[];
  /** What "always allow" saves to the person's settings for this workspace, exactly (RunEvaluation.saves). */
  saves?: string[];
  /** Why the line needs approval (set by Permissions): shown above the question. */
  reasons?: string[];
  /** What the sandbox would keep from the line unless the person grants it (set by Permissions: sandbox-needs.ts). */
  needs?: { reads: string[]; gitWrite: boolean };
}

/** An MCP tool call, as shown before it is approved. */
export interface McpCallPreview {
  server: string;
  tool: string;
  /** The arguments as pretty-printed JSON (the approver escapes and cuts them). */
  args: string;
  /** The server says the tool only reads: shown, never trusted. */
  readOnlyHint: boolean;
}

export interface PermRequest {
  kind: PermKind;
  /** Real absolute path, command line, or host. */
  target: string;
  /** The tool asking, shown to the person. */
  tool: string;
  /** Write previews (one per file; apply_patch sends several), or a command preview. */
  files?: FileChangePreview[];
  run?: RunPreview;
  mcp?: McpCallPreview;
  /** For a network request: who asked (the command line, or the URL web_fetch was given). */
  net?: { requestedBy: string };
  /**
   * A read outside the workspace (set by Permissions): "for this session" grants `folder` (the file's folder, or the
   * folder read), or the file alone when unset (a folder too wide to offer: /, the home, one holding the workspace).
   */
  readOutside?: { folder?: string; dir?: boolean };
  /** Extra paths a multi-file write touches; each is checked like `target`. */
  alsoTargets?: string[];
  /** Set by Permissions for a write that always asks: which file, and what runs it (`.envrc: direnv runs it…`). */
  protectedFiles?: { display: string; why: string }[];
  /**
   * Files whose change runs later by what it changes, not by the file's name (package.json's lint-staged or husky
   * key: package-hooks.ts), set by the change pipeline: asked about, as protectedFiles are, even under -A.
   */
  changesRunLater?: { display: string; why: string }[];
  /**
   * Aborted when what asked is over (the command ended, the turn ended or was interrupted): an open
   * question is withdrawn, a queued one never shown. Its reason (a string) says what ended.
   */
  signal?: AbortSignal;
  /** Asked for the person's own command (/undo, /rewind): asked every time, no refusal remembered, only yes or no. */
  byPerson?: boolean;
  /**
   * A write that loses work bunker did not make (a forced take-back over a file changed since: a hand edit):
   * what would be lost, in a sentence. Asked even where writes are allowed; refused, saying so, where bunker
   * is not asking.
   */
  loses?: string;
}

export type ApprovalAnswer =
  | { answer: "once" }
  /** A command allowed this once, and what the sandbox would keep from it (RunPreview.needs) granted for the session. */
  | { answer: "needs-session" }
  /**
   * Allow this exact target (file, or command prefix) for the rest of the session. With `runRules` ("always allow",
   * saved or not): exactly those rules, as shown, and not the prefixes (reviewer's R12-12: saving `run:rm -rf build`
   * granted `rm` for the session).
   */
  | { answer: "target-session"; runRules?: string[] }
  /** Allow every request of this kind (inside the workspace) for the session. */
  | { answer: "kind-session" }
  /** `stopsTurn`: Escape or Ctrl+C at the question, a no that also stops the turn (the closed question said so). */
  | { answer: "deny"; feedback?: string; stopsTurn?: boolean }
  /** Nobody answered: what asked ended first (PermRequest.signal). Refused, but not the person's refusal. */
  | { answer: "withdrawn"; why: string };

export interface Approver {
  /** False for the no-prompt approver: asking is the same as denying. */
  readonly interactive: boolean;
  ask(req: PermRequest): Promise<ApprovalAnswer>;
}

export type Verdict = "allow" | "deny" | "ask";
