// Keeps the current session saved: after every round and at the end of each
// turn. A store that fails (full disk, read-only home) is reported once and
// then left alone: the conversation goes on unsaved rather than stopping.
// When a second bunker has saved the same session meanwhile, this one's
// conversation is kept as a new session instead of overwriting the other's.
import { newSessionId, type SessionSnapshot, type SessionStore } from "./store.ts";

export class SessionRecorder {
  private broken = false;

  constructor(
    private readonly store: SessionStore | null,
    private readonly meta: { root: string; model: string },
    private readonly warn: (message: string) => void,
    public id: string = newSessionId(),
    /** The version last saved or loaded; null while this session has never been saved. */
    private version: number | null = null,
  ) {}

  /** The store, for what is kept beside the conversation (checkpoints); null when there is none. */
  get sessionStore(): SessionStore | null {
    return this.store;
  }

  /** Whether this session is being saved (a store opened and has not failed). */
  get saving(): boolean {
    return this.store !== null && !this.broken;
  }

  /** Whether this session is in the store now (a run that got no answer never is): what `bunker -r ID` can continue. */
  get saved(): boolean {
    return this.saving && this.version !== null;
  }

  save(snap: SessionSnapshot): void {
    if (!this.store || this.broken || snap.messages.length === 0) return;
    // A run that never got an answer (a bad key, no server) is nothing to continue: it is saved from its first reply on.
    if (this.version === null && !snap.messages.some((m) => m.role === "assistant")) return;
    try {
      let saved = this.store.save(this.id, this.meta, snap, this.version);
      if (saved === "conflict") {
        const old = this.id;
        this.startNew();
        saved = this.store.save(this.id, this.meta, snap, null);
        this.warn(`Session ${old} was also continued elsewhere; so nothing is lost, this conversation is now saved as session ${this.id}.`);
      }
      if (saved === "conflict") throw new Error("two sessions got the same id");
      this.version = saved;
    } catch (err) {
      this.broken = true;
      this.warn(`This session is no longer being saved: ${(err as Error).message}`);
    }
  }

  /** /clear: what follows is a new session; the old one stays saved. */
  startNew(): void {
    this.id = newSessionId();
    this.version = null;
  }
}
