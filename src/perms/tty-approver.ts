// The interactive approver: shows exactly what will happen (the coloured diff,
// or the command and where and how it runs), then asks with @clack/prompts.
// Escape or Ctrl+C is a "no" that also cancels the turn (as in Claude Code: the person is back at their prompt
// to say what to do instead). Writes only to its output stream (stderr by
// default: stdout is the answer in headless mode). One question at a time.
import type { Readable, Writable } from "node:stream";
import { isCancel, log } from "@clack/prompts";
import pc from "../ui/colors.ts";
import { DEFAULT_MAX_DIFF_LINES, renderFileChanges } from "../ui/diff-view.ts";
import { escapeControl } from "../ui/escape.ts";
import { markMixedScripts, mixedScripts, readableHost } from "../ui/mixed-scripts.ts";
import { withKeyFeed, type FeedInput, type FeedOptions } from "../ui/key-feed.ts";
import { reasonPrompt } from "../ui/reason-prompt.ts";
import { questionRows, selectKeys, whileOpen } from "../ui/select-keys.ts";
import { giveBackAtExit, type TtyIn } from "../ui/tty-exit.ts";
import { wrapInBox } from "../ui/wrap-words.ts";
import type { ApprovalAnswer, Approver, FileChangePreview, PermRequest } from "./types.ts";
import { isProtectedRelative } from "./workspace.ts";
import { argLines, MAX_ARG_LINES } from "../mcp/preview.ts";

export interface TtyApproverOptions {
  input?: Readable;
  output?: Writable;
  /** Colour the diff. Default: picocolors' detection. */
  color?: boolean;
  /** Diff lines shown before the rest is summarised. Default: what fits the terminal with the question, at most 200. */
  maxDiffLines?: number;
  /** Shows the whole of a change or a call that the question had to cut (default: the pager, src/ui/pager.ts). */
  viewer?: (text: string) => Promise<void>;
  /**
   * The person's own settings file (`~/.config/bunker/settings.json`): a command's question offers to save its
   * prefixes there as rules, shown and confirmed first. None: no such option. Not the workspace's file, whose
   * `run:` grants bunker ignores (a cloned repository must not grant itself commands).
   */
  settingsFile?: string;
  /** The workspace "always allow" saves for: its own rules in that file, which no other workspace reads (reviewer's R11-14). */
  workspace?: string;
}

type Choice = "once" | "target-session" | "needs-session" | "save" | "kind-session" | "deny" | "view";
/** The option offered when the question could not show everything: nothing is approved unseen. */
const VIEW_OPTION = { value: "view", label: "Show all of it first (above, it is cut to fit)" } as const;
/** Rows a diff is given at least, however small the screen: its header and the start of the change. */
const MIN_DETAIL_ROWS = 4;
/** Rows kept free under the question: the cursor's row, and one so the top of the box does not sit on the screen's edge. */
const SPARE_ROWS = 2;
/** Every option says how long its yes lasts: this once, or for this session (grants end with it). */
const ONCE = "Yes, this once";
/** What Escape or Ctrl+C at a question says: a no, and (but at the person's own /undo) the turn stops. */
const REFUSED = "Refused.";
const REFUSED_STOPPED = "Refused; the turn is cancelled.";

/** What ended, as the asker said it (the abort reason), in words. */
function withdrawnWhy(signal: AbortSignal): string {
  return typeof signal.reason === "string" ? signal.reason : "the request ended";
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** A path under the home folder as `~/…`, as the person knows it. */
function homeShort(path: string): string {
  const home = process.env.HOME;
  return home && home !== "/" && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

function withdrawn(signal: AbortSignal): ApprovalAnswer {
  return { answer: "withdrawn", why: withdrawnWhy(signal) };
}

export class TtyApprover implements Approver {
  readonly interactive = true;
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly color: boolean | undefined;
  private readonly fixedDiffLines: number | undefined;
  private readonly viewer: (text: string) => Promise<void>;
  private readonly settingsFile: string | undefined;
  private readonly workspace: string | undefined;
  /** Serialises questions: two prompts must never share the terminal. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: TtyApproverOptions = {}) {
    this.input = opts.input ?? process.stdin;
    this.output = opts.output ?? process.stderr;
    this.color = opts.color;
    this.fixedDiffLines = opts.maxDiffLines;
    this.settingsFile = opts.settingsFile;
    this.workspace = opts.workspace;
    this.viewer = opts.viewer ?? (async (text) => {
      const { page } = await import("../ui/pager.ts");
      await page(text, (t) => void this.output.write(t), { tty: Boolean((this.output as { isTTY?: boolean }).isTTY) && Boolean(process.stdout.isTTY) });
    });
  }

  /**
   * The rows left for what is shown above the question (a diff) once the title, the question, its options as
   * they wrap at this width, and the keys under them have theirs: a diff longer than that would push its own
   * header, or the options, out of sight (at 40 columns each option takes two rows). None known: no limit.
   */
  private detailRows(title: string, question: string, options: { value: Choice; label: string }[]): number | undefined {
    const rows = (this.output as { rows?: number }).rows;
    if (!rows) return undefined;
    const titleRows = 1 + wrapInBox([title], (this.output as { columns?: number }).columns).length;
    const asked = questionRows({ message: question, options, letters: { y: "once", n: "deny" }, output: this.output });
    return Math.max(MIN_DETAIL_ROWS, rows - titleRows - asked - SPARE_ROWS);
  }

  /**
   * The files' diffs with what is said above them (`above`), in at most `rows` rows as drawn in the box: a
   * line cut at a narrow width can take two rows, so the line budget is lowered until the rows fit.
   */
  private fittedDiff(files: FileChangePreview[], above: string[], rows: number | undefined, onCut: () => void): string[] {
    const columns = (this.output as { columns?: number }).columns;
    let lines = this.fixedDiffLines ?? Math.min(DEFAULT_MAX_DIFF_LINES, rows ?? DEFAULT_MAX_DIFF_LINES);
    for (;;) {
      let cut = false;
      const details = [...above, ...renderFileChanges(files, { color: this.color, maxLines: lines, maxLineLength: this.maxLineLength, onCut: () => (cut = true) })];
      const over = rows === undefined || this.fixedDiffLines !== undefined ? 0 : wrapInBox(details, columns).length - rows;
      if (over <= 0 || lines <= 1) {
        if (cut) onCut();
        return details;
      }
      lines = Math.max(1, lines - over);
    }
  }

  /** A diff line wider than the terminal wraps into several rows: cut it at the screen's width instead. */
  private get maxLineLength(): number | undefined {
    const columns = (this.output as { columns?: number }).columns;
    // "│  " and the diff's own sign come before the text.
    return columns ? Math.max(20, columns - 4) : undefined;
  }

  /** The title and the details as clack's log draws them at the terminal's width now, wrapped inside the box. */
  private header(title: string, details: string[]): string {
    // Wrapped inside the box: the terminal's own wrap would cut mid-word and leave the "│" gutter.
    const columns = (this.output as { columns?: number }).columns;
    let text = "";
    const sink = Object.create(this.output, { write: { value: (chunk: string) => ((text += chunk), true) } }) as Writable;
    log.step(wrapInBox([title], columns).join("\n"), { output: sink });
    if (details.length > 0) log.message(wrapInBox(details, columns), { output: sink, spacing: 0 });
    return text;
  }

  ask(req: PermRequest): Promise<ApprovalAnswer> {
    const next = this.queue.then(() => this.askNow(req));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async askNow(req: PermRequest): Promise<ApprovalAnswer> {
    const signal = req.signal;
    // What asked ended while an earlier question was open: this one is never shown.
    if (signal?.aborted) return withdrawn(signal);
    const { title, details, question, options, denyPrompt, whole } = this.describe(req);
    // What the question is about, above it; drawn again for a new width while the question is open (N11-15).
    const above = { text: this.header(title, details), redraw: () => {
      const again = this.describe(req);
      return this.header(again.title, again.details);
    } };
    this.output.write(above.text);

    // Escape or Ctrl+C: the closed question says it in one line, where its answer would be.
    const cancelled = req.byPerson ? REFUSED : REFUSED_STOPPED;
    let choice: Choice | symbol;
    let stopsTurn: boolean;
    for (;;) {
      // 1..N pick an option at once, as do y (yes, this once) and n (no).
      ({ answer: choice, stopsTurn } = await this.watchingCancel((input) => selectKeys<Choice>({ message: question, options, letters: { y: "once", n: "deny" }, cancelled, input, output: this.output, signal, above }), req));
      // The person's Escape or Ctrl+C stops the turn, which ends what asked (a fetch, a command) at once: still their no, not a withdrawal.
      if (stopsTurn) return { answer: "deny", stopsTurn };
      if (signal?.aborted) return withdrawn(signal);
      if (choice !== "view" || whole === undefined) break;
      // Seen whole, then asked again (the same question, nothing approved yet).
      await this.viewer(whole());
    }
    if (typeof choice === "symbol" || choice === "view") return { answer: "deny" };
    // Yes for the session in any case, for the rules shown and no more; saved as well once the person has seen them and said so.
    if (choice === "save") {
      const rules = req.run?.saves ?? [];
      await this.confirmSave(rules);
      return { answer: "target-session", runRules: rules };
    }
    if (choice === "needs-session") return { answer: "needs-session" };
    if (choice !== "deny") return { answer: choice };
    // The person's own /undo, or a file their message names (nothing to tell Claude: they asked for it themselves).
    if (req.byPerson || req.tool === "attach") return { answer: "deny" };

    // The reason goes on with the "No" just picked: typed at once, it is the reason (key-feed.ts).
    // Escape or Ctrl+C there: what was typed is cleared, and the closed prompt says in its place that nothing was sent.
    const reason = await this.watchingCancel((input) =>
      whileOpen(signal, (open) => reasonPrompt({ message: denyPrompt, placeholder: "optional; Enter to just refuse", cancelled: REFUSED_STOPPED, input, output: this.output, signal: open })),
      req,
      { continues: true },
    );
    if (reason.stopsTurn) return { answer: "deny", stopsTurn: true };
    if (signal?.aborted) return withdrawn(signal);
    const feedback = reason.answer;
    if (typeof feedback !== "string" || !feedback.trim()) return { answer: "deny" };
    return { answer: "deny", feedback: feedback.trim() };
  }

  /**
   * Saves the rules "always allow" named (the option showed them, and that it saves them: one decision, one keypress,
   * N12-27), then says in one line what was written where. A failure to save keeps the session's grant alone: the
   * command was approved either way.
   */
  private async confirmSave(rules: string[]): Promise<void> {
    const file = this.settingsFile;
    if (!file || rules.length === 0) return;
    const { addAllowRules } = await import("./settings-writer.ts");
    const c = pc.createColors(this.color ?? pc.isColorSupported);
    const columns = (this.output as { columns?: number }).columns;
    const shown = escapeControl(homeShort(file));
    const outcome = addAllowRules(file, rules, this.workspace);
    const forWhere = this.workspace ? ` for the workspace ${escapeControl(homeShort(this.workspace))}` : "";
    const said = outcome.saved
      ? outcome.added.length > 0
        ? c.green(`Saved to ${shown}${forWhere}: ${outcome.added.map((r) => escapeControl(r)).join(", ")}`)
        : c.dim(`Already in ${shown}; nothing added.`)
      : c.yellow(`Not saved (${escapeControl(outcome.why)}): ${shown} was left as it was; allowed for this session only.`);
    log.message(wrapInBox([said], columns), { output: this.output, spacing: 0 });
  }

  /**
   * Runs a clack prompt on keys fed one at a time (src/ui/key-feed.ts: what
   * is typed after the answer is kept, and answers no question it preceded).
   * Escape and Ctrl+C (clack reports both as a cancel) are "no, and stop": the
   * turn is cancelled as Ctrl+C cancels it everywhere else (the REPL listens
   * for SIGINT during a turn), and the person is back at their prompt to say
   * what to do instead. The person's own /undo has no turn to cancel: there
   * Escape is only "no". A cancel is stated in words, once: the closed select
   * says it where its answer would be (clack's struck-through option still
   * read "Yes"), and so does the closed reason prompt (src/ui/reason-prompt.ts).
   */
  private async watchingCancel<R>(prompt: (input: Readable) => Promise<R>, req: PermRequest, feed?: FeedOptions): Promise<{ answer: R; stopsTurn: boolean }> {
    const signal = req.signal;
    // The prompt hides the cursor and the feed sets raw mode: a signal meanwhile must not leave them so.
    const unhook = giveBackAtExit(this.input as TtyIn, this.output);
    const { answer, ctrlC } = await withKeyFeed(this.input as unknown as FeedInput, prompt, feed).finally(unhook);
    const c = pc.createColors(this.color ?? pc.isColorSupported);
    if (isCancel(answer) && signal?.aborted && !ctrlC) {
      // Nobody answered: the keys typed from now on belong to the input line, not to this question.
      log.message(c.dim(`Withdrawn: ${escapeControl(withdrawnWhy(signal))} before it was answered.`), { output: this.output, spacing: 0 });
      return { answer, stopsTurn: false };
    }
    const cancelsTurn = ctrlC || (isCancel(answer) && !req.byPerson);
    if (cancelsTurn) process.emit("SIGINT");
    return { answer, stopsTurn: cancelsTurn };
  }

  private describe(req: PermRequest): {
    title: string;
    details: string[];
    question: string;
    options: { value: Choice; label: string }[];
    denyPrompt: string;
    /** Everything the details had to cut, whole and escaped, when they cut anything. */
    whole?: () => string;
  } {
    const color = this.color ?? pc.isColorSupported;
    const c = pc.createColors(color);
    const tool = escapeControl(req.tool);
    const target = escapeControl(req.target);
    // Letters that pass for another script's (a Cyrillic о in gооgle.com): marked where shown, and named in notes.
    const mark = (line: string) => markMixedScripts(line, color).text;
    const scriptNotes = (...texts: string[]) => [...new Set(texts.flatMap((t) => mixedScripts(t)?.notes ?? []))].map((n) => c.yellow(n));
    switch (req.kind) {
      case "write": {
        const files = req.files ?? [];
        const names = files.length > 0 ? files.map((f) => escapeControl(f.display)) : [target];
        const many = names.length > 1;
        const touchesProtected = files.some((f) => isProtectedRelative(f.display)) || (req.protectedFiles?.length ?? 0) > 0;
        // The person's own /undo: yes or no ("this once" would say there were a lasting yes), nothing for the
        // session, nothing to tell the model.
        const options: { value: Choice; label: string }[] = [{ value: "once", label: req.byPerson ? "Yes" : ONCE }];
        if (req.byPerson) {
          options.push({ value: "deny", label: "No" });
        } else {
          options.push({ value: "target-session", label: `Yes, and allow all edits to ${many ? "these files" : "this file"} for this session` });
          if (!touchesProtected) options.push({ value: "kind-session", label: "Yes, and allow all edits for this session" });
          options.push({ value: "deny", label: "No, and tell Claude what to do instead" });
        }
        // The verb the files share ("undo wants to delete notes.txt" for a file the turn created; new user), else "edit".
        const verbs: Record<FileChangePreview["kind"], string> = { create: "create", delete: "delete", modify: "edit", rename: "move" };
        const verb = files.length > 0 && files.every((f) => f.kind === files[0]!.kind) ? verbs[files[0]!.kind] : "edit";
        const title = `${tool} wants to ${verb} ${names.join(", ")}`;
        const question = many ? `Apply these changes to ${names.length} files?` : `Apply this change to ${names[0]}?`;
        const protectedNotes = [
          ...(req.loses ? [c.yellow(`${escapeControl(req.loses)} (the lines marked - below):`)] : []),
          ...(req.protectedFiles ?? []).map((p) => `${c.yellow("runs code later:")} ${escapeControl(p.display)} ${c.dim("—")} ${c.yellow(escapeControl(p.why))}`),
        ];
        // The rows left once the question has its own, counting the view option that a cut adds.
        let cut = false;
        const details = this.fittedDiff(files, protectedNotes, this.detailRows(title, question, [...options, VIEW_OPTION]), () => (cut = true));
        // Last: whether the diff was cut depends on the terminal's size, and a number must mean the same at every width.
        if (cut) options.push(VIEW_OPTION);
        return {
          title,
          details,
          question,
          options,
          denyPrompt: "What should Claude do instead?",
          // Uncoloured: the viewer shows text as it is, escaped once more.
          ...(cut ? { whole: () => renderFileChanges(files, { color: false, maxLines: Number.MAX_SAFE_INTEGER, maxLineLength: Number.MAX_SAFE_INTEGER }).join("\n") } : {}),
        };
      }
      case "run": {
        const run = req.run;
        const command = escapeControl(run?.command ?? req.target, { keepNewlines: true });
        const prefixes = (run?.prefixes ?? []).map((p) => `\`${escapeControl(p)}\``);
        const details = [
          ...command.split("\n").map((l, i) => `${c.dim(i === 0 ? "$" : ">")} ${c.bold(mark(l))}`),
          ...scriptNotes(command),
          ...(run
            ? [
                `${c.dim("in")} ${escapeControl(run.cwd)}`,
                `${c.dim("sandboxed:")} ${run.sandboxed ? c.green("yes") : c.yellow("no")}   ${c.dim("network:")} ${run.network ? c.yellow("yes") : run.proxied ? c.green("each host asked unless granted") : c.green("no")}`,
                ...(run.reasons ?? []).map((r) => `${c.dim("asked because")} ${c.yellow(escapeControl(r))}`),
              ]
            : []),
        ];
        // What the sandbox would keep from the line: said before the question, and every yes grants it (N12-09, N12-15).
        const needs = run?.needs;
        const reads = (needs?.reads ?? []).map((p) => escapeControl(homeShort(p)));
        const granted = [...(reads.length > 0 ? [`read ${listed(reads)}`] : []), ...(needs?.gitWrite ? ["write .git"] : [])];
        if (needs && granted.length > 0) {
          if (reads.length > 0) details.push(c.yellow(`the sandbox does not show ${listed(reads)} (outside the workspace): a yes below lets the command see ${reads.length > 1 ? "them" : "it"}, read-only`));
          if (needs.gitWrite) details.push(c.yellow("the sandbox keeps .git read-only (git could not commit, add, branch or fetch): a yes below lets it write .git history (config and hooks stay read-only; --allow-write=.git at start does the same)"));
        }
        const it = granted.length > 0 ? `, and let it ${listed(granted)}` : "";
        const options: { value: Choice; label: string }[] = [{ value: "once", label: `${ONCE}${it}` }];
        if (granted.length > 0) options.push({ value: "needs-session", label: `Yes, and let commands ${listed(granted)} for this session` });
        if (prefixes.length > 0) {
          options.push({ value: "target-session", label: granted.length > 0 ? `Yes, let commands ${listed(granted)}, and don't ask again for ${listed(prefixes)} commands this session` : `Yes, and don't ask again for ${listed(prefixes)} commands this session` });
          // Exactly what is saved, and for where: the rules themselves (a program that deletes is saved as this command only).
          // Not for a line the sandbox would defeat: a saved rule cannot carry the grant it needs (N12-15).
          const saves = (run?.saves ?? []).map((r) => `\`${escapeControl(r)}\``);
          if (this.settingsFile && saves.length > 0 && granted.length === 0) options.push({ value: "save", label: `Yes, and always allow ${listed(saves)} ${this.workspace ? "in this workspace " : ""}(saved to your settings)` });
        }
        options.push({ value: "deny", label: "No, and tell Claude why" });
        return { title: `${tool} wants to run a command`, details, question: "Run this command?", options, denyPrompt: "Why not (sent to Claude)?" };
      }
      case "mcp": {
        const call = req.mcp;
        const server = escapeControl(call?.server ?? "");
        const name = escapeControl(call?.tool ?? req.target);
        const width = this.maxLineLength ?? 160;
        const args = call?.args ?? "{}";
        const shown = argLines(args, MAX_ARG_LINES, width);
        const cut = shown.join("\n") !== escapeControl(args, { keepNewlines: true });
        const details = [
          `${c.dim("server:")} ${c.bold(server)}   ${c.dim("tool:")} ${c.bold(name)}`,
          ...(call?.readOnlyHint ? [c.dim("the server says this tool only reads (its word, not checked)")] : []),
          c.dim("arguments:"),
          ...shown.map((l) => `  ${mark(l)}`),
          ...scriptNotes(escapeControl(args, { keepNewlines: true })),
        ];
        return {
          title: `${tool} wants to call the MCP tool ${name} of ${server}`,
          details,
          question: `Call ${target}?`,
          options: [
            { value: "once", label: ONCE },
            { value: "target-session", label: `Yes, and allow ${target} for this session` },
            { value: "deny", label: "No, and tell Claude why" },
            // Last, so the numbers above mean the same at every width.
            ...(cut ? [VIEW_OPTION] : []),
          ],
          denyPrompt: "Why not (sent to Claude)?",
          ...(cut ? { whole: () => escapeControl(args, { keepNewlines: true }) } : {}),
        };
      }
      case "read": {
        // A read outside the workspace (N12-11, N12-20): the exact path, and what "for this session" grants (commands see it too).
        const outside = req.readOutside;
        const folder = outside?.folder ? escapeControl(homeShort(outside.folder)) : undefined;
        return {
          title: outside ? `${tool === "attach" ? "Your message names" : `${tool} wants to read`} ${target}, outside the workspace` : `${tool} wants to read ${target}`,
          details: outside ? [c.dim(`${target} is not in the workspace; the sandbox shows commands what you allow here for the session too.`)] : [],
          question: tool === "attach" ? `Attach ${target}?` : `Allow reading ${target}?`,
          options: [
            // A folder is listed or searched file by file: only a grant of it for the session lets the walk in.
            ...(outside?.dir ? [] : [{ value: "once" as const, label: outside ? "Yes, this file once" : ONCE }]),
            { value: "target-session", label: folder ? `Yes, and allow reading ${folder}/ for this session` : "Yes, and allow reading it for this session" },
            { value: "deny", label: tool === "attach" ? "No" : "No, and tell Claude why" },
          ],
          denyPrompt: "Why not (sent to Claude)?",
        };
      }
      case "net": {
        // Deno's words: which host, who asked; allow once, for the session, or deny.
        const by = req.net ? escapeControl(req.net.requestedBy, { keepNewlines: true }) : "";
        // A host in punycode (web_fetch's URL) is named as it reads, too: its letters are checked and the note gives the form looked up.
        const host = readableHost(req.target);
        return {
          title: `${tool} requests net access to "${host === req.target ? target : mark(escapeControl(host))}"`,
          details: [
            ...(by ? by.split("\n").map((l, i) => `${c.dim(i === 0 ? "Requested by" : "            ")} ${c.bold(mark(l))}`) : []),
            ...scriptNotes(escapeControl(host), by),
          ],
          question: `Allow net access to "${target}"?`,
          options: [
            { value: "once", label: req.tool === "run_bash" ? "Allow (for this command)" : "Allow once" },
            { value: "target-session", label: `Allow ${target} for this session` },
            { value: "deny", label: "Deny, and tell Claude why" },
          ],
          denyPrompt: "Why not (sent to Claude)?",
        };
      }
    }
  }
}
