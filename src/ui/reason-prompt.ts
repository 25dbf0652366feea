// The line asked after a "No" ("What should Claude do instead?"), drawn as
// @clack/prompts' text prompt, except when Escape or Ctrl+C closes it: clack
// leaves what was typed on screen, struck through, which reads as if it had
// been sent. Here the closed prompt says what happened in its place, in one
// line, as the closed select does (src/ui/select-keys.ts).
import { TextPrompt, settings } from "@clack/core";
import { S_BAR, S_BAR_END, symbol } from "@clack/prompts";
import type { Readable, Writable } from "node:stream";
import { styleText } from "node:util";

export interface ReasonPromptOptions {
  message: string;
  placeholder: string;
  /** Shown in place of what was typed when Escape or Ctrl+C closed it. */
  cancelled: string;
  input?: Readable;
  output?: Writable;
  /** Aborting it closes the prompt unanswered (reported as a cancel). */
  signal?: AbortSignal;
}

class ReasonPrompt extends TextPrompt {
  constructor(opts: ConstructorParameters<typeof TextPrompt>[0]) {
    super(opts);
    // Withdrawn (the signal): drawn closed first, so what was typed does not stay on screen (clack closes it undrawn).
    opts.signal?.addEventListener("abort", () => {
      this.state = "cancel";
      // clack's render is private in its types only; it is how every state change is drawn.
      (this as unknown as { render(): void }).render();
    }, { once: true });
  }
}

export function reasonPrompt(opts: ReasonPromptOptions): Promise<string | symbol> {
  return new ReasonPrompt({
    input: opts.input,
    output: opts.output,
    signal: opts.signal,
    render() {
      const guide = settings.withGuide;
      const title = `${guide ? `${styleText("gray", S_BAR)}\n` : ""}${symbol(this.state)}  ${opts.message}\n`;
      const bar = (colour: "gray" | "cyan") => (guide ? `${styleText(colour, S_BAR)}  ` : "");
      const typed = this.value ?? "";
      if (this.state === "submit") return `${title}${bar("gray")}${styleText("dim", typed)}`;
      if (this.state === "cancel") {
        // Withdrawn (the signal): nobody answered, and the caller says so; otherwise the person's Escape or Ctrl+C.
        const said = opts.signal?.aborted ? styleText("dim", "(not answered)") : styleText("red", opts.cancelled) + (typed.trim() ? styleText("dim", " What you typed was not sent.") : "");
        return `${title}${bar("gray")}${said}${guide ? `\n${styleText("gray", S_BAR)}` : ""}`;
      }
      const shown = this.userInput ? this.userInputWithCursor : styleText("inverse", opts.placeholder[0] ?? " ") + styleText("dim", opts.placeholder.slice(1));
      return `${title}${bar("cyan")}${shown}\n${guide ? styleText("cyan", S_BAR_END) : ""}\n`;
    },
  }).prompt() as Promise<string | symbol>;
}
