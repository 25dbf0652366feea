// Keeps the current session saved: after every round and at the end of each
// turn. A store that fails (full disk, read-only home) is reported once and
// then left alone: the conversation goes on unsaved rather than stopping.
import { newSessionId, type SessionSnapshot, type SessionStore } from "./store.ts";

export class SessionRecorder {
  private broken = false;

  constructor(
    private readonly store: SessionStore | null,
    private readonly meta: { root: string; model: string },
    private readonly warn: (message: string) => void,
    public id: string = newSessionId(),
  ) {}

  /** Whether this session is being saved (a store opened and has not failed). */
  get saving(): boolean {
    return this.store !== null && !this.broken;
  }

  save(snap: SessionSnapshot): void {
    if (!this.store || this.broken) return;
    try {
      this.store.save(this.id, this.meta, snap);
    } catch (err) {
      this.broken = true;
      this.warn(`This session is no longer being saved: ${(err as Error).message}`);
    }
  }

  /** /clear: what follows is a new session; the old one stays saved. */
  startNew(): void {
    this.id = newSessionId();
  }
}
