// What the model is told about web_fetch and its one-line summary: cheap to
// load, so start-up offers the tool without loading the proxy (node:net).
import { escapeControl } from "../ui/escape.ts";
import type { ToolSpec } from "./tool.ts";

export interface WebFetchInput {
  url: string;
  offset?: number;
}

export const webFetchSpec: ToolSpec<WebFetchInput> = {
  name: "web_fetch",
  description:
    "Fetch an http(s) URL. HTML comes back as Markdown, JSON and text as they are, 20000 characters at a time: pass offset to read on. Hosts the person has not granted need their approval.",
  inputSchema: {
    type: "object",
    properties: {
      url: { type: "string" },
      offset: { type: "integer", description: "Character to start from (default 0)." },
    },
    required: ["url"],
    additionalProperties: false,
  },
  summarize: (input) => escapeControl(String(input.url)).slice(0, 120) + (input.offset ? ` (from ${input.offset})` : ""),
};
