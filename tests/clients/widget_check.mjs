// Runs widget/nlweb-ask.js in Node (a minimal DOM stands in for the browser)
// against a live endpoint: an answer with its summary, citation links and
// sources; NO_RESULTS; and a 429 once the bucket (3 requests) is empty.
// Usage: node widget_check.mjs <widget.js> <endpoint>
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";

class El {
  constructor(tag) { this.tagName = tag; this.children = []; this.attrs = {}; this.listeners = {}; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return this.attrs[k] ?? null; }
  removeAttribute(k) { delete this.attrs[k]; }
  append(...cs) { for (const c of cs) this.children.push(typeof c === "string" ? { text: c } : c); }
  replaceChildren(...cs) { this.children = []; this.append(...cs); }
  set textContent(t) { this.children = [{ text: t }]; }
  get textContent() { return this.children.map((c) => c.text ?? c.textContent).join(""); }
  addEventListener(t, f) { this.listeners[t] = f; }
  dispatchEvent(e) { this.fired = [...(this.fired || []), e.type]; }
  all(pred, out = []) {
    for (const c of this.children) if (c.tagName) { if (pred(c)) out.push(c); c.all(pred, out); }
    return out;
  }
}
globalThis.HTMLElement = class extends El { constructor() { super("nlweb-ask"); } };
globalThis.CustomEvent = class { constructor(t, o) { this.type = t; this.detail = o?.detail; } };
globalThis.document = { createElement: (t) => new El(t), head: new El("head") };
const registry = {};
globalThis.customElements = { get: (n) => registry[n], define: (n, c) => { registry[n] = c; } };

const [widget, endpoint] = process.argv.slice(2);
await import(pathToFileURL(widget).href);
const Box = registry["nlweb-ask"];
const box = () => { const w = new Box(); w.setAttribute("endpoint", endpoint); w.connectedCallback(); return w; };
const cls = (c) => (e) => (e.attrs.class || "").split(" ").includes(c);

// Labelled input, search form, live region.
const a = box();
const input = a.all((e) => e.tagName === "input")[0];
assert.ok(a.all((e) => e.tagName === "label" && e.attrs.for === input.attrs.id).length === 1);
assert.equal(a.all((e) => e.tagName === "form")[0].attrs.role, "search");
assert.equal(a.out.attrs["aria-live"], "polite");

// 1. An answer: summary with linked citations, then the sources.
await a.ask("how do I configure the rate limit");
const summary = a.out.all(cls("nlweb-ask-summary"))[0];
assert.ok(summary, "a summary");
const cites = summary.all(cls("nlweb-ask-cite"));
assert.ok(cites.length >= 1, "citations");
const sources = a.out.all(cls("nlweb-ask-sources"))[0].all((e) => e.tagName === "li");
assert.ok(sources.length >= 1, "sources");
const sourceUrls = sources.map((li) => li.all((e) => e.tagName === "a")[0].attrs.href);
for (const c of cites) {
  const n = Number(c.textContent.slice(1, -1));
  assert.equal(c.attrs.href.split("#")[0], sourceUrls[n - 1].split("#")[0], `[${n}] links its source's page`);
}
assert.deepEqual(a.prev, ["how do I configure the rate limit"]);
assert.deepEqual(a.fired, ["nlweb-ask:answer"]);

// 2. NO_RESULTS (a new box: no earlier questions to lean on).
const b = box();
await b.ask("zzqxv blorptangle");
assert.match(b.out.textContent, /Nothing in the docs matches/);
assert.deepEqual(b.fired, ["nlweb-ask:failure"]);

// 3. The third request of the minute is served, the fourth is a 429.
await b.ask("deploy with sam");
assert.ok(b.out.all(cls("nlweb-ask-sources")).length === 1, "third answer");
await b.ask("deploy with sam again");
assert.match(b.out.textContent, /Too many questions; try again in \d+ seconds/);
console.log(`widget: ok (${cites.length} citations, ${sources.length} sources, NO_RESULTS and 429 shown)`);
