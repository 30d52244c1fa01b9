// The <nlweb-ask> widget in a real browser: Debian's headless Chromium, driven
// over the DevTools protocol (Node's WebSocket; no npm packages). It loads the
// demo page (widget/demo.html, served beside the endpoint), moves to the box
// with the keyboard, types a question, presses Enter and waits for the answer;
// checks the summary, its citation links, its code block (copied by its button)
// and the sources; writes a screenshot;
// rates the answer down from the keyboard; then asks a question with no match
// (NO_RESULTS) and asks until a 429 is shown (the endpoint is started with 6
// requests a minute). The endpoint's index has one site: no site picker, and
// no `site` sent.
// With `sites`, the endpoint's index has several sites (the spec, JSON:
// {"sites": [{"site", "description", "default"?}], "pick": a site, "pages": a
// regular expression of its pages' URLs, "question"}): the picker lists them
// and "All" and starts on the default site; the site picked is sent with the
// question, whose sources are all its pages, and is the picker's choice after
// a reload; a `site` attribute comes before it; with no /sites, no picker.
// Usage: node --experimental-websocket widget_browser.mjs <demo-url> <screenshot.png>
//        node --experimental-websocket widget_browser.mjs sites <demo-url> <spec>
// Chromium: $CHROMIUM or /usr/bin/chromium.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), "nlweb-ask-chromium-"));
// The flags that keep Chromium off the network it cannot reach here, as root.
const chromium = spawn(process.env.CHROMIUM || "/usr/bin/chromium", [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=900,1000",
  `--user-data-dir=${profile}`, "--remote-debugging-port=0", "about:blank",
], { stdio: ["ignore", "ignore", "pipe"] });
const done = (code) => {
  chromium.once("exit", () => { rmSync(profile, { recursive: true, force: true, maxRetries: 5 }); process.exit(code); });
  chromium.kill();
};
process.on("uncaughtException", (e) => { console.error(e); done(1); });
setTimeout(() => { console.error("widget_browser: timed out after 90 s"); done(1); }, 90_000).unref();

// Chromium prints its DevTools address on stderr.
const browserWs = await new Promise((resolve, reject) => {
  let err = "";
  chromium.stderr.on("data", (d) => {
    err += d;
    const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  chromium.on("exit", (c) => reject(new Error(`chromium exited (${c}): ${err}`)));
});
const httpBase = browserWs.replace(/^ws:/, "http:").replace(/\/devtools\/.*$/, "");
const page = (await (await fetch(`${httpBase}/json/list`)).json()).find((t) => t.type === "page");

// A DevTools session: send(method, params) → result; events by name.
const ws = new WebSocket(page.webSocketDebuggerUrl);
await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
let nextId = 0;
const pending = new Map();
const waiters = [];
ws.onmessage = ({ data }) => {
  const msg = JSON.parse(data);
  if (msg.id && pending.has(msg.id)) {
    const { resolve, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) reject(new Error(`${msg.error.message} ${msg.error.data || ""}`));
    else resolve(msg.result);
  } else if (msg.method) {
    for (const w of waiters.filter((w) => w.method === msg.method)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(msg.params); }
  }
};
const send = (method, params = {}) => new Promise((resolve, reject) => {
  const id = ++nextId;
  pending.set(id, { resolve, reject });
  ws.send(JSON.stringify({ id, method, params }));
});
const event = (method) => new Promise((resolve) => waiters.push({ method, resolve }));
const evaluate = async (expression) => {
  const r = await send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
  if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description}`);
  return r.result.value;
};
const key = (k, code, vk, text) => ["keyDown", "keyUp"].reduce(
  (p, type) => p.then(() => send("Input.dispatchKeyEvent", { type, key: k, code, windowsVirtualKeyCode: vk, ...(type === "keyDown" && text ? { text } : {}) })),
  Promise.resolve(),
);
const type = async (s) => { for (const c of s) await send("Input.dispatchKeyEvent", { type: "char", text: c }); };
// Waits until the box is no longer busy and shows an answer or a failure.
const settled = async () => {
  for (let i = 0; i < 300; i++) {
    const state = await evaluate(`(() => { const b = document.querySelector("nlweb-ask");
      return !b.hasAttribute("aria-busy") && !!b.querySelector(".nlweb-ask-sources, .nlweb-ask-error"); })()`);
    if (state) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no answer within 30 s");
};
const ask = async (question) => {
  await evaluate(`document.querySelector("nlweb-ask input").select()`);
  await key("Backspace", "Backspace", 8);
  await type(question);
  await key("Enter", "Enter", 13, "\r");
  await settled();
};

await send("Page.enable");
await send("Runtime.enable");
await send("Network.enable");
const consoleErrors = [];
// The requests the page sends, in order.
const requests = [];
ws.addEventListener("message", ({ data }) => {
  const m = JSON.parse(data);
  if (m.method === "Runtime.exceptionThrown") consoleErrors.push(m.params.exceptionDetails.exception?.description);
  if (m.method === "Network.requestWillBeSent") requests.push({ method: m.params.request.method, url: m.params.request.url });
});
// The questions (POSTs) sent since `since` requests, each as its URL.
const asked = (since) => requests.slice(since).filter((r) => r.method === "POST" && new URL(r.url).pathname.endsWith("/ask")).map((r) => new URL(r.url));
// Loads `url`; resolves once the box has read /sites (and shown its picker, if any).
const open = async (url) => {
  const loaded = event("Page.loadEventFired");
  await send("Page.navigate", { url });
  await loaded;
  await evaluate(`customElements.whenDefined("nlweb-ask")`);
  await evaluate(`document.querySelector("nlweb-ask").sitesReady`);
};
// The site picker: its label, choice and options (value, text, title), or null.
const picker = () => evaluate(`(() => {
  const s = document.querySelector("nlweb-ask select");
  return s && { label: document.querySelector(\`label[for="\${s.id}"]\`)?.textContent, value: s.value,
    options: [...s.options].map((o) => [o.value, o.textContent, o.title]) };
})()`);
const sources = () => evaluate(`[...document.querySelectorAll("nlweb-ask .nlweb-ask-sources li a")].map((a) => a.href)`);

async function oneSite(demoUrl, screenshot) {
  await open(demoUrl);
  assert.equal(await picker(), null, "one site: no picker");
  // Keyboard only: Tab reaches the labelled input.
  let focused = "";
  for (let i = 0; i < 10 && focused !== "INPUT"; i++) {
    await key("Tab", "Tab", 9);
    focused = await evaluate(`document.activeElement?.tagName`);
  }
  assert.equal(focused, "INPUT", "Tab reaches the question box");
  const label = await evaluate(`(() => { const i = document.activeElement; return document.querySelector(\`label[for="\${i.id}"]\`)?.textContent; })()`);
  assert.equal(label, "Ask the docs");
  assert.equal(await evaluate(`document.querySelector("nlweb-ask .nlweb-ask-answer").getAttribute("aria-live")`), "polite");

  // 1. A question, typed and sent with Enter.
  const question = "how do I configure the rate limit";
  const before = requests.length;
  await type(question);
  await key("Enter", "Enter", 13, "\r");
  await settled();
  const answer = await evaluate(`(() => {
    const b = document.querySelector("nlweb-ask");
    const summary = b.querySelector(".nlweb-ask-summary");
    return {
      error: b.querySelector(".nlweb-ask-error")?.textContent,
      summary: summary?.textContent,
      cites: [...(summary?.querySelectorAll("a.nlweb-ask-cite") || [])].map((a) => ({ n: a.textContent, href: a.href })),
      sources: [...b.querySelectorAll(".nlweb-ask-sources li")].map((li) => ({
        title: li.querySelector("a")?.textContent, href: li.querySelector("a")?.href, snippet: li.querySelector("p")?.textContent })),
      prev: b.prev,
    };
  })()`);
  assert.equal(answer.error, undefined, `an answer, not a failure: ${answer.error}`);
  assert.ok(answer.summary && answer.summary.length > 40, `a summary: ${answer.summary}`);
  assert.ok(answer.cites.length >= 1, "the summary cites its sources");
  assert.ok(answer.sources.length >= 1, "sources listed");
  for (const s of answer.sources) {
    assert.ok(s.title && s.snippet, `each source has a title and a snippet: ${JSON.stringify(s)}`);
    assert.match(s.href, /^https:\/\/nlweb-ask\.example\.com\/docs\/\S+$/, "each source links its page");
  }
  assert.ok(answer.sources.some((s) => /#\S+$/.test(s.href)), "sources link their sections");
  assert.ok(answer.sources.some((s) => /rate limit/i.test(s.title)), `a rate-limit section among ${answer.sources.map((s) => s.title)}`);
  for (const c of answer.cites) {
    const n = Number(c.n.slice(1, -1));
    assert.ok(n >= 1 && n <= answer.sources.length, `${c.n} is a listed source`);
    assert.equal(c.href.split("#")[0], answer.sources[n - 1].href.split("#")[0], `${c.n} links its source's page`);
  }
  assert.deepEqual(answer.prev, [question], "the question is kept for follow-ups");
  assert.deepEqual(asked(before).map((u) => u.searchParams.get("site")), [null], "one site and no attribute: no site sent");
  // The summary's code as a code block, copied by its button.
  const code = await evaluate(`(() => {
    const block = document.querySelector("nlweb-ask .nlweb-ask-summary .nlweb-ask-code");
    return block && { code: block.querySelector("pre code")?.textContent, button: block.querySelector("button")?.textContent };
  })()`);
  assert.ok(code && code.code && code.code.trim().length > 0, `a code block in the summary: ${answer.summary}`);
  assert.equal(code.button, "Copy");
  const origin = new URL(demoUrl).origin;
  await send("Browser.grantPermissions", { origin, permissions: ["clipboardReadWrite", "clipboardSanitizedWrite"] });
  await evaluate(`(() => {
    const b = document.querySelector("nlweb-ask");
    window.copied = new Promise((r) => b.addEventListener("nlweb-ask:copy", (e) => r(e.detail), { once: true }));
    b.querySelector(".nlweb-ask-code button").click();
  })()`);
  const copied = await evaluate(`window.copied`);
  assert.deepEqual(copied, { text: code.code, ok: true }, "the copy button copies the block's code");
  assert.equal(await evaluate(`navigator.clipboard.readText()`), code.code, "the clipboard holds the code");
  assert.equal(await evaluate(`document.querySelector("nlweb-ask .nlweb-ask-code button").textContent`), "Copied");
  // The answered page, as a reader sees it.
  const shot = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true });
  writeFileSync(screenshot, Buffer.from(shot.data, "base64"));

  // The answer is rated down from the keyboard: the endpoint takes it (204).
  const rate = await evaluate(`(() => {
    const g = document.querySelector("nlweb-ask .nlweb-ask-rate[role=group]");
    return { label: g?.getAttribute("aria-label"), buttons: [...(g?.querySelectorAll("button") || [])].map((b) => b.getAttribute("aria-label")) };
  })()`);
  assert.deepEqual(rate, { label: "Did this answer help?", buttons: ["Yes, it helped", "No, it did not help"] });
  await evaluate(`(() => {
    const b = document.querySelector("nlweb-ask");
    window.rated = new Promise((r) => b.addEventListener("nlweb-ask:feedback", (e) => r(e.detail), { once: true }));
    b.querySelector("[data-rating=down]").focus();
  })()`);
  await key("Enter", "Enter", 13, "\r");
  const rated = await evaluate(`window.rated`);
  assert.equal(rated.status, 204, `the rating is received: ${JSON.stringify(rated)}`);
  assert.equal(rated.rating, "down");
  assert.match(rated.queryId, /^[0-9a-f]{8}\.[0-9a-f]{16}\.[0-9a-f]{32}$/, "the answer's query_id, from its start event");
  assert.deepEqual(await evaluate(`(() => {
    const g = document.querySelector("nlweb-ask .nlweb-ask-rate");
    return [g.querySelector(".nlweb-ask-rate-note").textContent, [...g.querySelectorAll("button")].map((b) => [b.disabled, b.getAttribute("aria-pressed")]),
      document.activeElement === g.querySelector(".nlweb-ask-rate-note")];
  })()`), ["Thanks for telling us.", [[true, "false"], [true, "true"]], true]);
  console.log(`rated query_id ${rated.queryId} down`);

  // 2. NO_RESULTS, in a fresh page: no earlier question to lean on.
  await open(demoUrl);
  await ask("zzqxv blorptangle");
  const none = await evaluate(`document.querySelector("nlweb-ask .nlweb-ask-error[role=alert]")?.textContent`);
  assert.equal(none, "Nothing in the docs matches that question.");

  // 3. The sixth request of the minute at most (the rating and each page's
  // /sites may be others) is answered; asking on spends the rest of the
  // bucket: a 429 within six more questions.
  await ask("deploy with sam");
  assert.ok(await evaluate(`!!document.querySelector("nlweb-ask .nlweb-ask-sources li")`), "sixth request at most, answered");
  let limited = "";
  for (let i = 0; i < 6 && !limited.startsWith("Too many"); i++) {
    await ask(`deploy with sam, again ${i}`);
    limited = await evaluate(`document.querySelector("nlweb-ask .nlweb-ask-error[role=alert]")?.textContent`) ?? "";
  }
  assert.match(limited, /^Too many questions; try again in \d+ seconds\.$/);
  // 4. An answer whose URLs are not http(s) (a JSONL corpus can hold any
  // string): no link is made of them; the text stays.
  const hostile = await evaluate(`(() => {
    const b = document.querySelector("nlweb-ask");
    b.render(
      { text: "Do it. [1] Or this. [2]", citations: [
        { index: 1, url: "javascript:alert(1)" }, { index: 2, url: "https://docs.example.com/a" }] },
      [{ name: "Bad", url: "javascript:alert(2)", description: "x" },
       { name: "Data", url: "data:text/html,<script>alert(3)</script>", description: "y" },
       { name: "Good", url: "https://docs.example.com/a", description: "z" }]);
    return {
      hrefs: [...b.querySelectorAll("a")].map((a) => a.getAttribute("href")),
      text: b.querySelector(".nlweb-ask-answer").textContent,
    };
  })()`);
  assert.deepEqual(hostile.hrefs, ["https://docs.example.com/a", "https://docs.example.com/a"]);
  assert.ok(hostile.text.includes("Bad") && hostile.text.includes("[1]"), hostile.text);
  assert.deepEqual(consoleErrors, [], "no uncaught page errors");

  console.log(`widget in chromium: ok (${answer.cites.length} citations, ${answer.sources.length} sources, NO_RESULTS and 429 shown, no link of a javascript: or data: URL; screenshot ${screenshot})`);
}

async function manySites(demoUrl, spec) {
  const names = [...spec.sites.map((s) => s.site), "all"];
  const fallback = spec.sites.find((s) => s.default)?.site;
  assert.ok(fallback && fallback !== spec.pick, `the spec names a default site, not the one picked: ${JSON.stringify(spec)}`);
  // 1. The picker: labelled, a site an option (its description the title)
  // and "All", on the default site.
  await open(demoUrl);
  const first = await picker();
  assert.ok(first, "several sites: a picker");
  assert.equal(first.label, "Docs");
  assert.deepEqual(first.options, [...spec.sites.map((s) => [s.site, s.site, s.description]), ["all", "All", "Every site's pages"]]);
  assert.equal(first.value, fallback, "the picker starts on the default site");
  // 2. Another site picked, as a reader's choice does (change fires); a
  // question asked with it: the request names it, its sources are its pages.
  await evaluate(`(() => {
    const s = document.querySelector("nlweb-ask select");
    s.value = ${JSON.stringify(spec.pick)};
    s.dispatchEvent(new Event("change", { bubbles: true }));
  })()`);
  let before = requests.length;
  await ask(spec.question);
  assert.equal(await evaluate(`document.querySelector("nlweb-ask .nlweb-ask-error")?.textContent`), undefined);
  assert.deepEqual(asked(before).map((u) => u.searchParams.get("site")), [spec.pick], "the question names the site picked");
  const found = await sources();
  assert.ok(found.length >= 1, "sources listed");
  for (const href of found) assert.match(href, new RegExp(spec.pages), `each source is a page of ${spec.pick}`);
  assert.equal(await evaluate(`localStorage.getItem("nlweb-ask.site")`), spec.pick, "the choice is remembered");
  // 3. The next page starts on the remembered choice, and asks it.
  await open(demoUrl);
  assert.equal((await picker())?.value, spec.pick, "after a reload, the remembered site");
  before = requests.length;
  await ask(spec.question);
  assert.deepEqual(asked(before).map((u) => u.searchParams.get("site")), [spec.pick]);
  // 4. A `site` attribute comes before the remembered choice.
  const withAll = new URL(demoUrl);
  withAll.searchParams.set("site", "all");
  await open(withAll.href);
  assert.equal((await picker())?.value, "all", "the site attribute's site");
  before = requests.length;
  await ask(spec.question);
  assert.deepEqual(asked(before).map((u) => u.searchParams.get("site")), ["all"]);
  // 5. No /sites to read (a path the endpoint does not serve): no picker,
  // and nothing shown.
  const nowhere = new URL(demoUrl);
  nowhere.searchParams.set("api", `${nowhere.searchParams.get("api")}/nowhere`);
  await open(nowhere.href);
  assert.equal(await picker(), null, "no /sites: no picker");
  assert.equal(await evaluate(`document.querySelector("nlweb-ask .nlweb-ask-answer").textContent`), "", "no /sites: no failure shown");
  assert.deepEqual(consoleErrors, [], "no uncaught page errors");
  console.log(`widget sites in chromium: ok (picker of ${names.join(", ")}; ${spec.pick} sent, its ${found.length} sources, remembered after a reload; the site attribute first; no /sites, no picker)`);
}

if (args[0] === "sites") await manySites(args[1], JSON.parse(args[2]));
else await oneSite(args[0], args[1]);
ws.close();
done(0);
