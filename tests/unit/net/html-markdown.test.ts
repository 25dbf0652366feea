import { expect, test } from "bun:test";
import { decodeEntities, htmlToMarkdown } from "../../../src/net/html-markdown.ts";

const md = (html: string) => htmlToMarkdown(html, "https://example.com/docs/guide.html").markdown;

test("headings, paragraphs, emphasis and links (made absolute); whitespace collapsed outside code", () => {
  expect(md(`<h2>Set   up</h2><p>Read <a href="api.html">the <em>API</em></a> and <a href="#top">this</a>,\n   <strong>then</strong> go.</p>`))
    .toBe("## Set up\n\nRead [the _API_](https://example.com/docs/api.html) and this, **then** go.");
});

test("lists nest and count; code blocks keep their lines; tables become rows", () => {
  expect(md("<ol><li>one</li><li>two<ul><li>inner</li></ul></li></ol>")).toBe("1. one\n2. two\n  - inner");
  expect(md("<pre><code>if (a &amp;&amp; b) {\n    go();\n}</code></pre>")).toBe("```\nif (a && b) {\n    go();\n}\n```");
  expect(md("<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>")).toBe("| k | v\n| a | 1");
});

test("scripts, styles, navigation, forms, hidden parts and the page's header and footer are dropped", () => {
  const page = `<html><head><title>T</title><style>x{}</style></head><body><header>site menu</header><nav>links</nav>
    <main><header><h1>Article</h1></header><p>body</p><script>steal()</script><form><input></form>
    <div hidden>h</div><span aria-hidden="true">a</span><div role="navigation">r</div><noscript>n</noscript></main>
    <footer>legal</footer></body></html>`;
  expect(htmlToMarkdown(page, "https://x/")).toEqual({ title: "T", markdown: "# Article\n\nbody" });
});

test("character references", () => {
  expect(decodeEntities("&lt;a&gt; &amp;amp; &#39;q&#x27; &mdash; &bogus; &#0;")).toBe("<a> &amp; 'q' — &bogus; &#0;");
});
