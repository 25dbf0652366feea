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
  /** When a question last closed (answered or withdrawn): a key on its way to it must not answer the next one. */
  closedAt: number;
}

const store = new WeakMap<object, Held>();

function held(input: object): Held {
  let h = store.get(input);
  if (!h) store.set(input, (h = { pieces: [], pickedAt: 0, typedAt: 0, closedAt: 0 }));
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

/** A question closed (answered, refused or withdrawn). */
export function noteClosed(input: object, at = Date.now()): void {
  held(input).closedAt = at;
}

/**
 * How long after a question closes a key may still be one the person meant for it: a reaction takes
 * 0.5–1 s, and a question withdrawn meanwhile (its command ended) must not hand that key to the next one.
 */
export const CLOSED_MS = 1000;

/**
 * Whether a question drawn now must first wait for the person to pause (QUIET_MS) before it takes keys:
 * they were typing just now, or a question closed just now and keys meant for it may still be coming.
 */
export function mustWaitForPause(input: object, now = Date.now()): boolean {
  const h = store.get(input);
  return h !== undefined && (now - h.typedAt < TYPING_MS || now - h.closedAt < CLOSED_MS);
}
