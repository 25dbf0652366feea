// Runs a clack prompt on keys handed over one at a time. Clack reads through
// readline, which turns a whole read into keypresses at once: keys typed
// after the answer went to a prompt that had closed and were lost. Here the
// prompt reads from a stream of its own, fed one key at a time while it is
// open; what it leaves is held (src/ui/typeahead.ts), in order, for the input
// line. A question is answered only by keys pressed while it is on screen:
// keys typed before it was drawn never approve what the person has not seen;
// and one drawn while the person is typing their next message takes no key
// until they stop for a moment: what they type meanwhile goes on into the
// message (the typeahead store) instead of moving or answering it. So does
// one drawn within a second of another question closing: a key the person
// pressed for that one (withdrawn as they reached for `y`, or answered by an
// earlier key) is still on its way and must not answer this one. An Enter
// right after a shortcut pick (`y` Enter) is that pick's confirmation; Ctrl+C
// typed ahead still cancels the turn at once.
import { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { flushTokens, readTokens, type KeyToken } from "./keys.ts";
import { confirmsPick, holdKeys, mustWaitForPause, noteClosed, notePick, noteTyping, QUIET_MS } from "./typeahead.ts";

export interface FeedInput {
  setRawMode?(mode: boolean): unknown;
  on(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  off(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  listenerCount(event: string): number;
  resume(): unknown;
  pause(): unknown;
}

export interface FeedResult<R> {
  answer: R;
  /** The prompt ended on Ctrl+C, or a Ctrl+C came right after its answer: the turn is to stop. */
  ctrlC: boolean;
}

/** Longer than readline's wait for the rest of an escape sequence (clack sets 50 ms): a lone Escape is read as one. */
const ESCAPE_SETTLE_MS = 80;
/** An unfinished sequence at the end of a read waits this long for the rest. */
const SEQUENCE_WAIT_MS = 25;

const isEnter = (t: KeyToken) => t.key?.name === "enter";
const isCtrlC = (t: KeyToken) => t.key?.name === "ctrl-c";

export interface FeedOptions {
  /**
   * This prompt goes on with the question that just closed (the reason asked after a "No"): its keys are
   * the person's answer to what they just chose, so it takes them at once.
   */
  continues?: boolean;
  /**
   * The keys that can answer this question (digits, arrows, Enter…): any other key is the person typing their
   * message (they have not seen the question yet), so it goes to the input line, and so does every key after it
   * until they pause (QUIET_MS). Without it every key is read as an answer.
   */
  answers?: (t: KeyToken) => boolean;
  /**
   * The keys that put the question's cursor back where it was drawn (a number that only moves: "2" for "No"). A
   * number that moved it, followed at once by keys that cannot answer, was the start of the person's message ("1 more
   * thing"): the number goes to the input line with the rest, and these keys undo its move, so the Enter the person
   * presses later does not pick what the message's first digit moved to (new user).
   */
  undoMove?: string;
}

export async function withKeyFeed<R>(input: FeedInput, prompt: (feed: Readable) => Promise<R>, opts: FeedOptions = {}): Promise<FeedResult<R>> {
  // What clack reads: a terminal as far as it can tell; raw mode is set on the real one here.
  const feed = Object.assign(new Readable({ read() {} }), { isTTY: true, setRawMode: () => feed });
  const open = () => feed.listenerCount("keypress") > 0;
  // Keys typed before the question was drawn stay held, for the input line: only keys pressed now answer it.
  const queue: KeyToken[] = [];
  const decoder = new StringDecoder("utf8");
  let rest = "";
  let restTimer: ReturnType<typeof setTimeout> | undefined;
  let settling: ReturnType<typeof setTimeout> | undefined;
  let first = true;
  let ctrlC = false;
  // Typing when the question came, or another question just closed: keys go to the message until a pause of QUIET_MS
  // (Escape and Ctrl+C still answer: they only refuse and stop).
  let typingUntil = !opts.continues && mustWaitForPause(input) ? Date.now() + QUIET_MS : 0;
  // Numbers fed to a question whose cursor they only moved, and when: a message's first digits if text follows at once.
  let moves: { raw: string; at: number }[] = [];

  const pump = () => {
    while (queue.length > 0 && open() && !settling) {
      const token = queue.shift()!;
      // `y` then Enter (the habit of confirming): the Enter belongs to the pick just made.
      if (first && isEnter(token) && confirmsPick(input)) {
        first = false;
        continue;
      }
      first = false;
      if (isCtrlC(token)) ctrlC = true;
      feed.emit("data", Buffer.from(token.raw));
      if (!open()) {
        // Answered by a shortcut key: an Enter typed right after it in the same read is its confirmation.
        if (token.key?.name === "text") {
          notePick(input);
          if (queue[0] && isEnter(queue[0])) queue.shift();
        }
        break;
      }
      if (opts.undoMove !== undefined && token.key?.name === "text") moves.push({ raw: token.raw, at: Date.now() });
      // readline reads an Escape and the key after it as one Alt+key: give it time to see the Escape alone.
      if (token.key?.name === "escape" && token.raw === "\x1b") {
        settling = setTimeout(() => {
          settling = undefined;
          pump();
        }, ESCAPE_SETTLE_MS);
      }
    }
  };

  // The digits just before this text (waiting in the queue, or fed moments ago) were its start: to the input line.
  const takeBackMoves = (now: number) => {
    const queued: string[] = [];
    while (queue.length > 0 && queue.at(-1)!.key?.name === "text") queued.unshift(queue.pop()!.raw);
    const fed = moves.filter((m) => now - m.at < QUIET_MS).map((m) => m.raw);
    moves = [];
    if (fed.length > 0 && open()) feed.emit("data", Buffer.from(opts.undoMove!));
    if (fed.length + queued.length > 0) holdKeys(input, [...fed, ...queued]);
  };

  const onData = (chunk: Buffer | string) => {
    clearTimeout(restTimer);
    const read = readTokens(rest, typeof chunk === "string" ? chunk : decoder.write(chunk));
    rest = read.rest;
    const now = Date.now();
    for (const t of read.tokens) {
      const stops = isCtrlC(t) || (t.key?.name === "escape" && t.raw === "\x1b");
      // A key that cannot answer it: the person is typing their message, and keys go there until they pause.
      if (!stops && opts.answers && !opts.answers(t)) {
        if (opts.undoMove !== undefined && now >= typingUntil) takeBackMoves(now);
        typingUntil = now + QUIET_MS;
      }
      if (now >= typingUntil) {
        queue.push(t);
        continue;
      }
      typingUntil = now + QUIET_MS;
      // `y` Enter for the question before: the Enter confirms that pick, it is no text.
      if (isEnter(t) && confirmsPick(input)) continue;
      if (stops) queue.push(t);
      else holdKeys(input, [t.raw]);
    }
    if (rest) {
      restTimer = setTimeout(() => {
        queue.push(...flushTokens(rest));
        rest = "";
        pump();
      }, SEQUENCE_WAIT_MS);
    }
    pump();
  };

  input.setRawMode?.(true);
  input.on("data", onData);
  input.resume();
  const answering = prompt(feed as unknown as Readable);
  pump();
  let answer: R;
  try {
    answer = await answering;
  } finally {
    clearTimeout(restTimer);
    clearTimeout(settling);
    input.off("data", onData);
    input.setRawMode?.(false);
    noteClosed(input);
    // Nobody else reading: stop reading, so what is typed next waits in the terminal for the next reader.
    if (input.listenerCount("data") === 0) input.pause();
  }
  // Ctrl+C typed ahead is not an answer to keep: it stops the turn now.
  const left = queue.filter((t) => !isCtrlC(t));
  if (left.length < queue.length) ctrlC = true;
  holdKeys(input, [...left.map((t) => t.raw), ...(rest ? [rest] : [])]);
  return { answer, ctrlC };
}

/** How long the terminal is read before a question with nobody else reading it: what waits there comes at once. */
const WAITING_MS = 40;

/**
 * Keys already typed when a question is about to be drawn and nobody was reading the terminal (at start-up,
 * before the input line exists, the keys wait in the terminal): typed before the question, they must not
 * answer it. They are held for the input line, in order, and count as typing, so the question drawn next
 * takes no key until the person pauses (QUIET_MS), as one drawn while they type at the input line.
 */
export async function holdWaitingKeys(input: FeedInput, waitMs = WAITING_MS): Promise<void> {
  if (input.listenerCount("data") > 0) return;
  const decoder = new StringDecoder("utf8");
  let rest = "";
  const onData = (chunk: Buffer | string) => {
    const read = readTokens(rest, typeof chunk === "string" ? chunk : decoder.write(chunk));
    rest = read.rest;
    holdKeys(input, read.tokens.map((t) => t.raw));
    noteTyping(input);
  };
  input.setRawMode?.(true);
  input.on("data", onData);
  input.resume();
  await Bun.sleep(waitMs);
  input.off("data", onData);
  input.pause();
  if (rest) holdKeys(input, flushTokens(rest).map((t) => t.raw));
}
