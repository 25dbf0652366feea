// Keys read but not used by the question that read them: what came after an
// answer in the same read (`y` Enter `y` Enter typed at full speed), and what
// the person typed on into their message while a question was drawn. They are
// held here, in order, and never answer a later question (key-feed.ts): when
// the turn ends the REPL's input line gets them, unsent (Keyboard, prompt.ts).
// Also when the person last typed and last picked by a shortcut key. One store
// per input stream, shared by everyone who reads it.

interface Held {
  /** Keys as read (one key's bytes each), oldest first. */
  pieces: string[];
  /** When a prompt last ended on a shortcut key (y, n, 1…): an Enter right after it confirms that pick. */
  pickedAt: number;
  /** When the person last pressed a key (any reader): a question drawn while they type must not take the keys that follow. */
  typedAt: number;
}

const store = new WeakMap<object, Held>();

function held(input: object): Held {
  let h = store.get(input);
  if (!h) store.set(input, (h = { pieces: [], pickedAt: 0, typedAt: 0 }));
  return h;
}

/** Appends keys read but not yet used. */
export function holdKeys(input: object, pieces: string[]): void {
  held(input).pieces.push(...pieces);
}

/** Takes every held key, oldest first (the store is left empty). */
export function takeHeldKeys(input: object): string[] {
  const h = held(input);
  const pieces = h.pieces;
  h.pieces = [];
  return pieces;
}

export function hasHeldKeys(input: object): boolean {
  return (store.get(input)?.pieces.length ?? 0) > 0;
}

/** How long after a shortcut pick an Enter still reads as its confirmation, not as the next question's answer. */
export const CONFIRM_MS = 300;

export function notePick(input: object, at = Date.now()): void {
  held(input).pickedAt = at;
}

/** Whether an Enter now follows a shortcut pick closely enough to be its confirmation. */
export function confirmsPick(input: object, now = Date.now()): boolean {
  const h = store.get(input);
  return h !== undefined && now - h.pickedAt < CONFIRM_MS;
}

/** A key was pressed (by whichever reader heard it). */
export function noteTyping(input: object, at = Date.now()): void {
  held(input).typedAt = at;
}

/** How recently a key before a question means the person was typing (and has not seen it yet). */
export const TYPING_MS = 1000;
/** While they type on, keys go to their message: a question takes keys only after this long without one. */
export const QUIET_MS = 500;

/** Whether the person was typing just now (a question drawn now is one they have not read). */
export function wasTyping(input: object, now = Date.now()): boolean {
  const h = store.get(input);
  return h !== undefined && now - h.typedAt < TYPING_MS;
}
