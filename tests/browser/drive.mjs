// Drives Debian's chromium, headless, through `python -m wire demo --web`:
// one page follows a reply to its end; a second page is reloaded mid-reply
// and must resume from a checkpoint. Prints what both pages showed as JSON
// for tests/test_browser.py. Never downloads a browser: playwright-core only
// drives the executable it is given.
// Usage: node drive.mjs URL SCREENSHOT.png USER_DATA_DIR [CHROMIUM]
import { chromium } from "playwright-core";

const [url, screenshot, userDataDir, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-dev-shm-usage", // containers often give /dev/shm 64 MB, too little for chromium
];

// What the page shows, read from the DOM (not from the runtime's Msg).
function readDom() {
  const blocks = [...document.querySelectorAll("#msg > section")].map((section) => {
    const body = section.querySelector(".body");
    const img = section.querySelector("img");
    return {
      type: section.className.replace(" streaming", ""),
      id: section.dataset.block,
      state: section.dataset.state ?? null,
      text: body.textContent,
      args: Object.fromEntries([...section.querySelectorAll("dt")].map((dt) => [dt.textContent,
        dt.nextElementSibling.textContent])),
      image: img ? { width: img.naturalWidth, height: img.naturalHeight, complete: img.complete } : null,
    };
  });
  return { state: document.body.dataset.state, status: document.getElementById("status").textContent, blocks };
}

// Records every distinct rendering of the tool call's arguments while they stream.
function watchToolCall() {
  window.toolCallViews = [];
  new MutationObserver(() => {
    const list = document.querySelector("section.tool_call dl");
    if (!list) return;
    const view = Object.fromEntries([...list.querySelectorAll("dt")].map((dt) => [dt.textContent,
      dt.nextElementSibling.textContent]));
    const last = window.toolCallViews[window.toolCallViews.length - 1];
    if (JSON.stringify(view) !== JSON.stringify(last)) window.toolCallViews.push(view);
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

async function finished(page) {
  await page.waitForFunction(() => window.wireDemo?.done || window.wireDemo?.error, null, { timeout: 60_000 });
  return page.evaluate(() => ({
    msg: window.wireDemo.msg, events: window.wireDemo.events, checkpoints: window.wireDemo.checkpoints,
    connections: window.wireDemo.connections, error: window.wireDemo.error ?? null,
    replyStatus: document.getElementById("status").textContent, toolCallViews: window.toolCallViews,
  }));
}

const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath, headless: true, args: FLAGS, viewport: { width: 900, height: 1100 },
});
try {
  await context.addInitScript(watchToolCall);
  const errors = [];

  // 1. A page that follows the reply to its end.
  const whole = await context.newPage();
  whole.on("pageerror", (error) => errors.push(String(error)));
  await whole.goto(url);
  const wholeRun = await finished(whole);
  await whole.waitForFunction(() => [...document.images].every((img) => img.complete));
  const wholeDom = await whole.evaluate(readDom);
  await whole.screenshot({ path: screenshot, fullPage: true });

  // 2. A page reloaded mid-reply, while the tool call's arguments stream.
  const reloaded = await context.newPage();
  reloaded.on("pageerror", (error) => errors.push(String(error)));
  await reloaded.goto(url);
  await reloaded.waitForFunction(() => document.querySelector("section.tool_call dd") !== null, null,
    { timeout: 60_000 });
  const before = await reloaded.evaluate(() => ({ events: window.wireDemo.events, done: window.wireDemo.done,
    msg: window.wireDemo.msg, stored: sessionStorage.getItem("wire-demo-reply") }));
  await reloaded.reload();
  const reloadedRun = await finished(reloaded);
  await reloaded.waitForFunction(() => [...document.images].every((img) => img.complete));
  const reloadedDom = await reloaded.evaluate(readDom);

  console.log(JSON.stringify({ whole: { ...wholeRun, dom: wholeDom }, beforeReload: before,
    reloaded: { ...reloadedRun, dom: reloadedDom }, errors }));
} finally {
  await context.close();
}
