// /undo and /rewind in the REPL, and `bunker --undo` / `--rewind[=N]` without
// one: take back bunker's file changes by turn (src/change/checkpoints.ts),
// through the change pipeline, so the person sees the diff and is asked.
import pc from "./ui/colors.ts";
import { SessionState } from "./agent/session-state.ts";
import type { App } from "./app.ts";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { bunkerNote, messagesBefore } from "./agent/history.ts";
import { Checkpoints, takeBackNote, type TurnSummary } from "./change/checkpoints.ts";
import { startChanges } from "./change/start.ts";
import type { Config } from "./config.ts";
import { NoPromptApprover } from "./perms/approver.ts";
import { PermissionDenied, Permissions } from "./perms/permissions.ts";
import { Policy } from "./perms/policy.ts";
import type { PermRequest } from "./perms/types.ts";
import { unaskedChangeLines } from "./ui/diff-view.ts";
import { ago, openSession } from "./session/open.ts";
import type { SessionStore } from "./session/store.ts";
import { typedText } from "./session/replay.ts";
import { SessionError } from "./session/error.ts";
import { ToolError, type ToolContext } from "./tools/tool.ts";
import { escapeControl } from "./ui/escape.ts";
import { isTerminal } from "./ui/is-terminal.ts";

const UNTRACKED = "changes made by commands are not tracked";

/** Handles /undo and /rewind; false for any other line. */
/** What a refused /undo, /rewind or --undo says. */
const NOT_TAKEN_BACK = "Nothing taken back: you kept the files as they are.";

/**
 * `putBack`: where the message of a turn taken out of the conversation (/rewind N conversation) goes to be edited and
 * sent again, as Claude Code's rewind puts it back in the input (new user 12's N12-19: the line was left empty, and the
 * message had to be found with Up).
 */
export async function rewindCommand(text: string, app: App, write: (s: string) => void = (s) => void process.stderr.write(s), putBack?: (message: string) => boolean): Promise<boolean> {
  const [cmd, ...args] = text.trim().split(/\s+/);
  if (cmd !== "/undo" && cmd !== "/rewind") return false;
  const force = args.includes("force");
  const conversation = args.includes("conversation");
  const rest = args.filter((a) => a !== "force" && a !== "conversation");
  // A wrong argument is said as such, whether or not there is anything to take back.
  if (cmd === "/undo" && rest.length > 0) {
    write(pc.red(`Unknown option ${escapeControl(rest.join(" "))}. `) + "Use /undo or /undo force.\n");
    return true;
  }
  if (cmd === "/rewind" && (rest.length > 1 || (rest.length === 1 && !/^[1-9]\d*$/.test(rest[0]!)))) {
    write(pc.red(`${escapeControl(rest.join(" "))} is not a turn number. `) + "Use /rewind to list the turns, then /rewind N [conversation] [force].\n");
    return true;
  }
  const turns = app.checkpoints.turns();
  if (turns.length === 0) {
    write(pc.dim(`Nothing to take back: bunker changed no files in this session that are not already taken back (${UNTRACKED}).\n`));
    return true;
  }
  let turn: TurnSummary | undefined;
  if (cmd === "/undo") {
    turn = turns.at(-1);
  } else {
    if (rest.length === 0) {
      write(listTurns(turns));
      return true;
    }
    const n = Number(rest[0]);
    turn = turns.find((t) => t.number === n);
    if (!turn) {
      write(pc.red(`No turn ${escapeControl(rest[0]!)} changed files still in effect. `) + `Give a number from /rewind's list (${numbers(turns)}).\n`);
      return true;
    }
  }
  const said = await takeBack(app, turn!, { force, conversation, how: cmd === "/undo" ? "/undo" : `/rewind ${turn!.number}`, putBack });
  if (said) write(said);
  return true;
}

/**
 * Takes the files (and, if asked, the conversation) back to before `turn`; the line to show. Files taken back
 * while the conversation stays are told to the model with the person's next message (a note saved with the
 * session), so it does not go on believing its edits are there.
 */
export async function takeBack(app: App, turn: TurnSummary, opts: { force: boolean; conversation: boolean; how: string; putBack?: (message: string) => boolean }): Promise<string> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on("SIGINT", onSigint);
  try {
    const { said, restored } = await app.checkpoints.undo(app.context(controller.signal), turn, { force: opts.force });
    let convo = "";
    if (opts.conversation) {
      // What the person typed for that turn, without what bunker added to it (attached files, notes).
      const typed = typedText(app.agent.history.messages[turn.turn]);
      app.agent.history.truncateTurn(turn.turn);
      convo = ` The conversation is back to before turn ${turn.number} too.`;
      if (typed && opts.putBack?.(typed)) convo += " Your message is back in the input line to edit and send again.";
    } else if (restored.length > 0) {
      app.agent.history.addUser([bunkerNote(takeBackNote(turn, restored, opts.how))]);
      app.ui.onInjected(takeBackNote(turn, restored, opts.how));
      convo = " Claude is told with your next message.";
    }
    if (opts.conversation || restored.length > 0) app.recorder.save({ messages: app.agent.history.messages, todos: app.session.todos });
    return `${escapeControl(said)}${convo}\n`;
  } catch (err) {
    const shown = err instanceof ToolError ? (err.shown ?? err.message) : (err as Error).message;
    // The person's own "No": said in one line, as `bunker --undo` says it (new user 12's N12-07: the prompt came back with nothing).
    if (!shown && err instanceof PermissionDenied) return pc.dim(`${NOT_TAKEN_BACK}\n`);
    return shown ? pc.red(`${escapeControl(shown)}\n`) : "";
  } finally {
    process.off("SIGINT", onSigint);
  }
}

export function listTurns(turns: TurnSummary[]): string {
  const rows = turns.map((t) => {
    const time = new Date(t.at).toTimeString().slice(0, 5);
    const files = t.files.length > 3 ? `${t.files.slice(0, 3).join(", ")} (+${t.files.length - 3} more)` : t.files.join(", ");
    return `  ${String(t.number).padStart(2)}  ${time}  ${escapeControl(files)}  ${pc.green(`+${t.added}`)} ${pc.red(`-${t.removed}`)}  ${pc.dim(escapeControl(`"${t.prompt}"`))}`;
  });
  return (
    `Turns that changed files, oldest first; N is your Nth message in this conversation, so a number keeps its turn when others are taken back (${UNTRACKED}):\n${rows.join("\n")}\n` +
    pc.dim("/rewind N takes the files back to before turn N; add \"conversation\" to drop those turns from the conversation too, \"force\" to take back files changed since (you are shown what that loses and asked).\n")
  );
}

/** The turn numbers a list holds, as a person reads them: "1, 3 or 4". */
function numbers(turns: TurnSummary[]): string {
  const all = turns.map((t) => String(t.number));
  return all.length === 1 ? all[0]! : `${all.slice(0, -1).join(", ")} or ${all.at(-1)}`;
}

/**
 * " The last session here that changed files is ID ("its title", 5 min ago): bunker -r ID --undo." for the newest
 * session in `root` other than `newest` with changes still to take back; "" when there is none. A headless run in the
 * same folder (CI, a script) became "the session" for --undo and --rewind without a word about the one that had
 * changed files (new user 12's N12-12).
 */
function lastThatChanged(store: SessionStore | null, root: string, newest: string, how: "--undo" | "--rewind"): string {
  if (!store) return "";
  const found = store.list(root, 50).find((s) => s.id !== newest && store.changesSince(s.id, 0).length > 0);
  if (!found) return "";
  const title = found.title.split("\n")[0]!.trim();
  const named = title ? `"${escapeControl(title.length > 40 ? `${title.slice(0, 39)}…` : title)}", ` : "";
  return ` The last session here that changed files is ${found.id} (${named}${ago(Date.now() - found.updated)}): bunker -r ${found.id} ${how}`;
}

/**
 * `bunker --undo` / `--rewind[=N]` outside the REPL. In a terminal (and not
 * --no-prompt) the person is shown the diff and asked, as /undo does; without
 * one nothing is asked: the take-back goes ahead only where --allow-write (or
 * a rule) covers the files, and is refused with the flag to add otherwise.
 */
export async function runTakeBack(config: Config): Promise<number> {
  const say = (line: string) => process.stderr.write(`${escapeControl(line)}\n`);
  let opened;
  try {
    opened = await openSession(config, say);
  } catch (err) {
    say(`bunker: ${(err as Error).message}`);
    return err instanceof SessionError ? err.exitCode : 1;
  }
  // Nothing to take back is an answer, not a failure (`bunker -c --undo && …` goes on): said on stdout, as a
  // take-back is, and exit 0. A turn number that does not exist is a mistake (exit 1).
  if (!opened.resumed) {
    process.stdout.write("Nothing to take back: there is no saved session in this workspace.\n");
    return 0;
  }
  const messages = opened.resumed.messages;
  const checkpoints = new Checkpoints(opened.recorder.sessionStore, () => opened.recorder.id, () => messages);
  const changes = startChanges(config, say);
  const asks = !config.noPrompt && isTerminal(0) && isTerminal(2);
  const approver = asks ? new (await import("./perms/tty-approver.ts")).TtyApprover() : new NoPromptApprover();
  // What is taken back unasked (--allow-write), or refused unasked, is shown as a diff, as in a session.
  const showDiff = (req: PermRequest) => void process.stderr.write(unaskedChangeLines(req.files ?? []).map((l) => `${l}\n`).join(""));
  const perms = new Permissions({ policy: new Policy(config.root, config.grants), approver, notify: () => {}, onUnasked: showDiff });
  const ctx: ToolContext = { root: config.root, perms, session: new SessionState(), ui: { info: say, debug: () => {} }, signal: new AbortController().signal, changes };
  const turns = checkpoints.turns();
  const want = config.takeBack!.turn;
  // The newest session, taken because none was named, may be a headless run that changed nothing: the one that did is named.
  const elsewhere = turns.length === 0 && config.resume?.kind !== "id" ? lastThatChanged(opened.recorder.sessionStore, config.root, opened.recorder.id, want === "list" ? "--rewind" : "--undo") : "";
  if (want === "list") {
    process.stdout.write(turns.length === 0 ? `Session ${opened.recorder.id} has no file changes to take back (${UNTRACKED}).${elsewhere}\n` : listTurns(turns).replace(/\/rewind N/, "bunker --rewind=N"));
    return 0;
  }
  if (turns.length === 0) {
    process.stdout.write(`Nothing to take back: bunker changed no files in session ${opened.recorder.id} that are not already taken back (${UNTRACKED}).${elsewhere}\n`);
    return 0;
  }
  const turn = want === "last" ? turns.at(-1) : turns.find((t) => t.number === want);
  if (!turn) {
    say(`No turn ${want} changed files still in effect: bunker --rewind lists turns ${numbers(turns)}.`);
    return 1;
  }
  try {
    const { force, conversation } = config.takeBack!;
    const done = await checkpoints.undo(ctx, turn, { force });
    let said = escapeControl(done.said);
    if (conversation) {
      opened.recorder.save({ messages: messagesBefore(messages, turn.turn), todos: opened.resumed.todos });
      said += ` The saved conversation is back to before turn ${turn.number} too.`;
    } else if (done.restored.length > 0) {
      // The next `bunker -c` tells the model, with the person's message, that its edits are gone.
      const how = want === "last" ? "bunker --undo" : `bunker --rewind=${turn.number}`;
      const note: MessageParam = { role: "user", content: [bunkerNote(takeBackNote(turn, done.restored, how))] };
      opened.recorder.save({ messages: [...messages, note], todos: opened.resumed.todos });
      said += " Claude is told when the session is continued.";
    }
    process.stdout.write(`${said}\n`);
    return 0;
  } catch (err) {
    // The person's own no (or Escape) at the question: an answer, not a failure, said in their words.
    if (asks && err instanceof PermissionDenied && err.shown !== undefined) {
      process.stdout.write(`${NOT_TAKEN_BACK}\n`);
      return 0;
    }
    say(`bunker: ${(err as Error).message}`);
    return 1;
  }
}
