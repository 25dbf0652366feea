// HTML → readable Markdown for web_fetch, with Bun's streaming HTMLRewriter:
// headings, paragraphs, links (made absolute), lists, code blocks and inline
// code, emphasis and simple tables are kept; scripts, styles, navigation,
// forms, the page's own header and footer and hidden parts are dropped.
// Pure: no I/O.

const DROPPED = [
  "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "form", "button", "select", "head",
  "nav", "[role=navigation]", "[aria-hidden=true]", "[hidden]", "body > header", "body > footer",
].join(", ");

const ENTITIES: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", mdash: "—", ndash: "–", hellip: "…", rsquo: "’", lsquo: "‘",
  rdquo: "”", ldquo: "“", copy: "©", reg: "®", trade: "™", middot: "·", bull: "•", laquo: "«", raquo: "»", times: "×",
};

/** Decodes character references (&amp; &#39; &#x27; and the common named ones). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

export function htmlToMarkdown(html: string, baseUrl: string): { title: string; markdown: string } {
  const out: string[] = [];
  let title = "";
  let skip = 0;
  let pre = 0;
  const lists: { ordered: boolean; n: number }[] = [];
  const emit = (s: string) => {
    if (skip === 0) out.push(s);
  };
  /** Runs `open` now and `close` at the end tag (void elements have none). */
  const around = (open: (e: HTMLRewriterTypes.Element) => void, close: () => void) => ({
    element(e: HTMLRewriterTypes.Element) {
      open(e);
      if (e.canHaveContent && !e.selfClosing) e.onEndTag(close);
      else close();
    },
  });
  const absolute = (href: string) => {
    try {
      return new URL(href, baseUrl).href;
    } catch {
      return href;
    }
  };

  const rw = new HTMLRewriter()
    .on("title", { text: (t) => void (title += t.text) })
    .on(DROPPED, around(() => void skip++, () => void skip--));
  for (let level = 1; level <= 6; level++) rw.on(`h${level}`, around(() => emit(`\n\n${"#".repeat(level)} `), () => emit("\n\n")));
  rw.on("p, table, blockquote, figure, dl", around(() => emit("\n\n"), () => emit("\n\n")))
    .on("div, section, article, main, dt, dd, figcaption", around(() => emit("\n"), () => emit("\n")))
    .on("tr", { element: () => emit("\n") })
    .on("th, td", around(() => emit(" | "), () => {}))
    .on("br", { element: () => emit("\n") })
    .on("hr", { element: () => emit("\n\n---\n\n") })
    .on("ul, ol", around((e) => lists.push({ ordered: e.tagName === "ol", n: 0 }), () => {
      lists.pop();
      emit("\n");
    }))
    .on("li", {
      element() {
        const list = lists.at(-1) ?? { ordered: false, n: 0 };
        emit(`\n${"  ".repeat(Math.max(0, lists.length - 1))}${list.ordered ? `${++list.n}.` : "-"} `);
      },
    })
    .on("a[href]", {
      element(e) {
        const href = e.getAttribute("href") ?? "";
        if (href.startsWith("#") || /^javascript:/i.test(href) || !e.canHaveContent) return;
        emit("[");
        e.onEndTag(() => emit(`](${absolute(href)})`));
      },
    })
    .on("pre", around(() => {
      pre++;
      emit("\n\n```\n");
    }, () => {
      pre--;
      emit("\n```\n\n");
    }))
    .on("code", around(() => pre === 0 && emit("`"), () => pre === 0 && emit("`")))
    .on("strong, b", around(() => emit("**"), () => emit("**")))
    .on("em, i", around(() => emit("_"), () => emit("_")))
    .on("img[alt]", {
      element(e) {
        const alt = e.getAttribute("alt")?.trim();
        if (alt) emit(`![${alt}](${absolute(e.getAttribute("src") ?? "")})`);
      },
    })
    .onDocument({
      text(t) {
        if (skip > 0 || t.text === "") return;
        const text = decodeEntities(t.text);
        out.push(pre > 0 ? text : text.replace(/\s+/g, " "));
      },
    });
  rw.transform(html);
  return { title: decodeEntities(title).replace(/\s+/g, " ").trim(), markdown: tidy(out.join("")) };
}

/** Trims the spaces the markup left at line ends and starts (outside code blocks) and runs of blank lines. */
function tidy(text: string): string {
  let fenced = false;
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    lines.push(fenced ? line : line.trimEnd().replace(/^ (?=\S)/, "").replace(/^ +$/, ""));
  }
  return lines.join("\n").replace(/\n{3,}/g, "\n\n").trim();
}
