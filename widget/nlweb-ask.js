// <nlweb-ask endpoint="https://…/ask"> — an "Ask the docs" box for a docs site.
// One ES module, no dependencies. It POSTs an NLWeb 0.55 body and reads the
// Server-Sent Events answer with fetch and a stream reader, renders the summary
// with its numbered citations linked to the sources (its fenced code as a code
// block with a copy button, its tables as tables), then the sources, shows a
// failure's message (NO_RESULTS, RATE_LIMITED with the wait), and keeps the
// earlier questions (context.prev) for follow-ups, and under each answer asks
// whether it helped (a thumbs up or down, POSTed to <endpoint>/feedback with
// the answer's query_id). It names itself with X-Ask-Client: widget, so that
// the endpoint's analytics can tell its readers from other clients. It asks
// the site its `site` attribute names (the `site` URL parameter); when the
// endpoint's /sites lists several, a picker in the form chooses the site (or
// all), and the reader's choice is remembered in localStorage. Theme it with
// CSS custom properties: --nlweb-ask-accent, --nlweb-ask-bg, --nlweb-ask-fg, --nlweb-ask-muted,
// --nlweb-ask-radius, --nlweb-ask-font, --nlweb-ask-code-bg.
// Renders into its own children (light DOM), so page styles and tests can see it.
const STYLE = `
nlweb-ask{display:block;font:var(--nlweb-ask-font,inherit);color:var(--nlweb-ask-fg,inherit);background:var(--nlweb-ask-bg,transparent)}
nlweb-ask form{display:flex;gap:.5em}
nlweb-ask input{flex:1;padding:.5em;border:1px solid var(--nlweb-ask-muted,#888);border-radius:var(--nlweb-ask-radius,6px);font:inherit}
nlweb-ask select{padding:.5em;border:1px solid var(--nlweb-ask-muted,#888);border-radius:var(--nlweb-ask-radius,6px);font:inherit}
nlweb-ask button{padding:.5em 1em;border:0;border-radius:var(--nlweb-ask-radius,6px);background:var(--nlweb-ask-accent,#2563eb);color:#fff;font:inherit;cursor:pointer}
nlweb-ask .nlweb-ask-summary{margin:1em 0}
nlweb-ask .nlweb-ask-error{color:#b91c1c}
nlweb-ask .nlweb-ask-sources li{margin:.5em 0}
nlweb-ask .nlweb-ask-sources p{margin:.2em 0;color:var(--nlweb-ask-muted,#555)}
nlweb-ask a{color:var(--nlweb-ask-accent,#2563eb)}
nlweb-ask .nlweb-ask-rate{display:flex;gap:.5em;align-items:center;color:var(--nlweb-ask-muted,#555)}
nlweb-ask .nlweb-ask-rate button{display:inline-flex;padding:.3em .6em;background:transparent;color:inherit;border:1px solid var(--nlweb-ask-muted,#888)}
nlweb-ask .nlweb-ask-rate button[aria-pressed="true"]{background:var(--nlweb-ask-accent,#2563eb);color:#fff}
nlweb-ask .nlweb-ask-code{position:relative;margin:.75em 0}
nlweb-ask .nlweb-ask-code pre{margin:0;padding:.75em;overflow:auto;border-radius:var(--nlweb-ask-radius,6px);background:var(--nlweb-ask-code-bg,#f3f4f6);font:.9em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
nlweb-ask .nlweb-ask-code button{position:absolute;top:.4em;right:.4em;padding:.2em .6em;font-size:.8em}
nlweb-ask .nlweb-ask-summary table{border-collapse:collapse;margin:.75em 0}
nlweb-ask .nlweb-ask-summary th,nlweb-ask .nlweb-ask-summary td{border:1px solid var(--nlweb-ask-muted,#888);padding:.2em .5em;text-align:left}
`;

let styled = false;
// Where the reader's choice of site is kept between pages.
const SITE_KEY = "nlweb-ask.site";

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

// A link only to an http(s) page: an answer's URLs come from the index,
// and a corpus (a JSONL file) can hold a javascript: or data: URL.
function safeUrl(url) {
  try {
    const u = new URL(url, location.href);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : null;
  } catch {
    return null;
  }
}

// A thumb drawn in SVG (an emoji needs a font the page may not have),
// pointing up or down.
function thumb(direction) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  for (const [k, v] of Object.entries({ viewBox: "0 0 24 24", width: "18", height: "18", "aria-hidden": "true", fill: "currentColor" })) {
    svg.setAttribute(k, v);
  }
  const g = document.createElementNS(ns, "g");
  if (direction === "down") g.setAttribute("transform", "rotate(180 12 12)");
  const cuff = document.createElementNS(ns, "rect");
  for (const [k, v] of Object.entries({ x: "2", y: "10", width: "4", height: "11", rx: "1" })) cuff.setAttribute(k, v);
  const hand = document.createElementNS(ns, "path");
  hand.setAttribute("d", "M8 10 12 3c1.5 0 2 1 1.6 2.5L13 9h7c1.2 0 2 1 1.7 2.2l-2.1 8.4c-.3.9-1 1.4-1.9 1.4H8z");
  g.append(cuff, hand);
  svg.append(g);
  return svg;
}

class NlwebAsk extends HTMLElement {
  connectedCallback() {
    if (this.form) return;
    if (!styled) {
      document.head.append(el("style", {}, STYLE));
      styled = true;
    }
    this.prev = [];
    const id = `nlweb-ask-${Math.random().toString(36).slice(2)}`;
    this.input = el("input", { id, type: "search", autocomplete: "off", name: "q" });
    this.form = el(
      "form",
      { role: "search" },
      el("label", { for: id }, this.getAttribute("label") || "Ask the docs"),
      this.input,
      el("button", { type: "submit" }, "Ask"),
    );
    this.status = el("p", { class: "nlweb-ask-status" });
    this.out = el("div", { class: "nlweb-ask-answer", "aria-live": "polite" });
    this.append(this.form, this.status, this.out);
    this.sitesReady = this.pickSites();
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      const q = this.input.value.trim();
      if (q) this.ask(q);
    });
    const initial = this.getAttribute("question");
    if (initial) {
      this.input.value = initial;
      this.ask(initial);
    }
  }

  // The sites the endpoint lists (GET /sites, beside /ask): with several, a
  // labelled picker in the form, one option a site and "All". Its first
  // choice is the `site` attribute, else the reader's last choice if still
  // listed, else the default site, else the first. With one site, or no
  // list, no picker (and no error: asking still works).
  async pickSites() {
    const endpoint = (this.getAttribute("endpoint") || "/ask").split(/[?#]/)[0].replace(/\/+$/, "");
    let details = [];
    try {
      // A plain GET (no X-Ask-Client): no CORS preflight before the picker.
      const res = await fetch(new URL("sites", new URL(endpoint, location.href)));
      if (res.ok) details = (await res.json()).details.filter((d) => typeof d?.site === "string");
    } catch {}
    if (details.length < 2) return;
    const names = [...details.map((d) => d.site), "all"];
    let remembered = null;
    try {
      remembered = localStorage.getItem(SITE_KEY);
    } catch {}
    const first = [this.getAttribute("site"), remembered, details.find((d) => d.default)?.site]
      .find((s) => names.includes(s)) || names[0];
    const id = `${this.input.id}-site`;
    this.picker = el("select", { id, name: "site" },
      ...details.map((d) => el("option", { value: d.site, title: d.description || "" }, d.site)),
      el("option", { value: "all", title: "Every site's pages" }, "All"));
    this.picker.value = first;
    this.picker.addEventListener("change", () => {
      try {
        localStorage.setItem(SITE_KEY, this.picker.value);
      } catch {}
    });
    this.input.after(el("label", { for: id }, "Docs"), this.picker);
  }

  async ask(text) {
    const endpoint = this.getAttribute("endpoint") || "/ask";
    this.out.replaceChildren();
    this.status.textContent = "Searching…";
    this.setAttribute("aria-busy", "true");
    const body = {
      query: { text },
      context: { prev: this.prev.slice(-5) },
      prefer: { streaming: true, mode: this.getAttribute("mode") || "summarize" },
      meta: { version: "0.55" },
    };
    const items = [];
    let summary = null;
    let queryId = null;
    try {
      // A question asked at once (the `question` attribute) waits for the
      // picker's first choice.
      await this.sitesReady;
      const url = new URL(endpoint, location.href);
      const site = this.picker?.value || this.getAttribute("site");
      if (site) url.searchParams.set("site", site);
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", "x-ask-client": "widget" },
        body: JSON.stringify(body),
      });
      const type = res.headers.get("content-type") || "";
      if (!type.startsWith("text/event-stream")) {
        const doc = await res.json().catch(() => ({}));
        return this.fail(doc, res.headers.get("retry-after"));
      }
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = event
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).trim())
            .join("\n");
          if (!data) continue;
          const msg = JSON.parse(data);
          if (msg.message_type === "start") queryId = msg.query_id;
          if (msg.message_type === "result" && msg.item) {
            if (msg.item["@type"] === "SearchSummary") summary = msg.item;
            else items.push(msg.item);
          } else if (msg.message_type === "error") {
            return this.fail(msg);
          }
        }
        if (done) break;
      }
      this.prev.push(text);
      this.render(summary, items);
      if (queryId) this.out.append(this.rating(queryId));
    } catch (e) {
      this.fail({ error: { message: `The docs could not be asked (${e.message}).` } });
    } finally {
      this.removeAttribute("aria-busy");
    }
  }

  fail(doc, retryAfter) {
    const err = doc.error || doc.data?.error || {};
    let message = err.message || "The docs could not answer.";
    if (err.code === "NO_RESULTS") message = "Nothing in the docs matches that question.";
    if (err.code === "RATE_LIMITED") {
      message = `Too many questions; try again in ${retryAfter || "a few"} seconds.`;
    }
    this.status.textContent = "";
    this.out.replaceChildren(el("p", { class: "nlweb-ask-error", role: "alert" }, message));
    this.dispatchEvent(new CustomEvent("nlweb-ask:failure", { detail: err }));
  }

  // "Did this answer help?" with a thumbs up and down; a click sends the
  // rating once (POST <endpoint>/feedback) and says whether it was received.
  rating(queryId) {
    const endpoint = (this.getAttribute("endpoint") || "/ask").split(/[?#]/)[0].replace(/\/+$/, "");
    const note = el("span", { class: "nlweb-ask-rate-note", role: "status", tabindex: "-1" });
    const box = el("div", { class: "nlweb-ask-rate", role: "group", "aria-label": "Did this answer help?" }, "Did this answer help?");
    const send = async (rating, button) => {
      for (const b of box.querySelectorAll("button")) b.disabled = true;
      button.setAttribute("aria-pressed", "true");
      let status = 0;
      try {
        const res = await fetch(`${endpoint}/feedback`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-ask-client": "widget" },
          body: JSON.stringify({ query_id: queryId, rating }),
        });
        status = res.status;
      } catch {}
      note.textContent = status === 204 ? "Thanks for telling us." : "Your rating could not be sent.";
      if (status !== 204) {
        // Let the reader try again.
        for (const b of box.querySelectorAll("button")) b.disabled = false;
        button.setAttribute("aria-pressed", "false");
      }
      // The pressed button is disabled: keep the keyboard on the note.
      note.focus();
      this.dispatchEvent(new CustomEvent("nlweb-ask:feedback", { detail: { queryId, rating, status } }));
    };
    for (const [rating, label] of [["up", "Yes, it helped"], ["down", "No, it did not help"]]) {
      const b = el("button", { type: "button", "aria-label": label, "aria-pressed": "false", "data-rating": rating }, thumb(rating));
      b.addEventListener("click", () => send(rating, b));
      box.append(b);
    }
    box.append(note);
    return box;
  }

  // A code block from the summary, with a button that copies its code.
  code(lang, text) {
    const code = el("code", lang ? { "data-lang": lang } : {}, text);
    const copy = el("button", { type: "button", "aria-label": "Copy the code" }, "Copy");
    copy.addEventListener("click", async () => {
      let ok = false;
      try {
        await navigator.clipboard.writeText(text);
        ok = true;
      } catch {
        // Without the asynchronous clipboard (an insecure page): a selection.
        const area = el("textarea", { readonly: "", style: "position:fixed;opacity:0" });
        area.value = text;
        this.append(area);
        area.select();
        ok = document.execCommand("copy");
        area.remove();
      }
      copy.textContent = ok ? "Copied" : "Copy failed";
      this.dispatchEvent(new CustomEvent("nlweb-ask:copy", { detail: { text, ok } }));
    });
    return el("div", { class: "nlweb-ask-code" }, copy, el("pre", {}, code));
  }

  // A Markdown table's lines (header, separator, rows) as a table.
  table(lines) {
    const cells = (line) => line.trim().replace(/^\|/, "").replace(/\|$/, "")
      .split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
    const [head, , ...rows] = lines;
    return el("table", {},
      el("thead", {}, el("tr", {}, ...cells(head).map((c) => el("th", {}, c)))),
      el("tbody", {}, ...rows.map((r) => el("tr", {}, ...cells(r).map((c) => el("td", {}, c))))));
  }

  // The summary's text as a reader sees it: paragraphs whose [n] link to
  // their sources, fenced code as code blocks, tables as tables. Built
  // from DOM nodes only: nothing in the text is read as HTML.
  summaryNode(summary) {
    const box = el("div", { class: "nlweb-ask-summary" });
    const links = new Map(
      (summary.citations || []).map((c) => [String(c.index), safeUrl(c.url)]).filter(([, u]) => u),
    );
    const prose = (chunk) => {
      const lines = chunk.split("\n");
      if (lines.length >= 2 && lines.every((l) => l.trim().startsWith("|"))) return box.append(this.table(lines));
      const p = el("p", {});
      // "… sentence. [2] …": each [n] becomes a link to its source.
      for (const piece of chunk.split(/(\[\d+\])/)) {
        const n = piece.match(/^\[(\d+)\]$/)?.[1];
        if (n && links.has(n)) p.append(el("a", { href: links.get(n), class: "nlweb-ask-cite" }, piece));
        else p.append(piece);
      }
      box.append(p);
    };
    // A fence of three backticks or more, closed by as many (or more).
    const fence = /^(`{3,})([^\n`]*)\n([\s\S]*?)^\1`*[ \t]*$/gm;
    let last = 0;
    for (const m of summary.text.matchAll(fence)) {
      for (const chunk of summary.text.slice(last, m.index).split(/\n{2,}/)) if (chunk.trim()) prose(chunk.trim());
      box.append(this.code(m[2].trim(), m[3].replace(/\n$/, "")));
      last = m.index + m[0].length;
    }
    for (const chunk of summary.text.slice(last).split(/\n{2,}/)) if (chunk.trim()) prose(chunk.trim());
    return box;
  }

  render(summary, items) {
    this.status.textContent = "";
    const parts = [];
    if (summary) parts.push(this.summaryNode(summary));
    const list = el("ol", { class: "nlweb-ask-sources" });
    for (const it of items) {
      const url = safeUrl(it.url);
      const title = url ? el("a", { href: url }, it.name || url) : el("span", {}, it.name || String(it.url));
      list.append(el("li", {}, title, el("p", {}, it.description || "")));
    }
    parts.push(list);
    this.out.replaceChildren(...parts);
    this.dispatchEvent(new CustomEvent("nlweb-ask:answer", { detail: { summary, items } }));
  }
}

if (!customElements.get("nlweb-ask")) customElements.define("nlweb-ask", NlwebAsk);
