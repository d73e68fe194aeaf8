// Drives Debian's chromium, headless, through `python -m wire demo --web`:
// one page holds a session of two replies. The first is reloaded mid-stream,
// then parks on its tool call: Allow. "Ask again" starts the second, which
// parks too (the screenshot), is reloaded there, and is denied. Prints what
// the page showed as JSON for tests/test_browser.py. Never downloads a
// browser: playwright-core only drives the executable it is given.
// Usage: node drive.mjs URL SCREENSHOT.png USER_DATA_DIR [CHROMIUM]
import { chromium } from "playwright-core";

const [url, screenshot, userDataDir, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-dev-shm-usage", // containers often give /dev/shm 64 MB, too little for chromium
];
const WAIT = { timeout: 60_000 };

// What the page shows, read from the DOM (not from the runtime's Msgs).
function readDom() {
  const list = (root) => Object.fromEntries([...root.querySelectorAll("dt")].map((dt) => [dt.textContent,
    dt.nextElementSibling.textContent]));
  const replies = [...document.querySelectorAll("#chat > article")].map((article) => ({
    id: article.dataset.reply,
    state: article.dataset.state,
    blocks: [...article.querySelectorAll(":scope > section:not(.confirm)")].map((section) => {
      const img = section.querySelector("img");
      return {
        type: section.className.replace(" streaming", ""),
        id: section.dataset.block,
        state: section.dataset.state ?? null,
        text: section.querySelector(".body").textContent,
        args: list(section),
        image: img ? { width: img.naturalWidth, height: img.naturalHeight, complete: img.complete } : null,
      };
    }),
    confirm: [...article.querySelectorAll(":scope > section.confirm")].map((panel) => ({
      text: panel.querySelector("p").textContent, args: list(panel),
      buttons: [...panel.querySelectorAll("button")].map((b) => b.textContent),
    })),
  }));
  return { state: document.body.dataset.state, status: document.getElementById("status").textContent,
    again: !document.getElementById("again").hidden, replies };
}

// Records every distinct rendering of each reply's tool call arguments while they stream.
function watchToolCall() {
  window.toolCallViews = {}; // reply id -> views
  new MutationObserver(() => {
    for (const list of document.querySelectorAll("article section.tool_call dl")) {
      const views = window.toolCallViews[list.closest("article").dataset.reply] ??= [];
      const view = Object.fromEntries([...list.querySelectorAll("dt")].map((dt) => [dt.textContent,
        dt.nextElementSibling.textContent]));
      if (JSON.stringify(view) !== JSON.stringify(views[views.length - 1])) views.push(view);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

const seenByPage = () => ({ events: window.wireDemo.events, checkpoints: window.wireDemo.checkpoints,
  restored: window.wireDemo.restored, connections: window.wireDemo.follower?.connections ?? 0,
  texts: window.wireDemo.follower ? window.wireDemo.texts() : [], error: window.wireDemo.error ?? null });

const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath, headless: true, args: FLAGS, viewport: { width: 900, height: 1100 },
});
try {
  await context.addInitScript(watchToolCall);
  const errors = [];
  const page = await context.newPage();
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(url);

  // 1. Reloaded mid-reply, while the first reply's thinking streams.
  await page.waitForFunction(() => window.wireDemo?.events >= 10, null, WAIT);
  const beforeReload = await page.evaluate(seenByPage);
  await page.reload();
  // 2. The first reply parks on its tool call: the panel shows the arguments; Allow.
  await page.waitForSelector("article:nth-of-type(1) section.confirm button.allow", WAIT);
  const parked1 = { dom: await page.evaluate(readDom), seen: await page.evaluate(seenByPage) };
  await page.click("article:nth-of-type(1) section.confirm button.allow");
  await page.waitForFunction(() => document.body.dataset.state === "ended", null, WAIT);
  await page.waitForFunction(() => [...document.images].every((img) => img.complete));
  const ended1 = { dom: await page.evaluate(readDom), seen: await page.evaluate(seenByPage) };

  // 3. Ask again: the second reply parks (the screenshot), is reloaded there, and is denied.
  await page.click("#again");
  await page.waitForSelector("article:nth-of-type(2) section.confirm button.deny", WAIT);
  await page.waitForFunction(() => [...document.images].every((img) => img.complete));
  await page.screenshot({ path: screenshot, fullPage: true });
  const toolCallViews = await page.evaluate(() => window.toolCallViews); // the second reply's streamed live
  await page.reload();
  await page.waitForSelector("article:nth-of-type(2) section.confirm button.deny", WAIT);
  await page.waitForFunction(() => [...document.images].every((img) => img.complete));
  const parked2 = { dom: await page.evaluate(readDom), seen: await page.evaluate(seenByPage) };
  await page.click("article:nth-of-type(2) section.confirm button.deny");
  await page.waitForFunction(() => document.body.dataset.state === "ended", null, WAIT);
  const ended2 = { dom: await page.evaluate(readDom), seen: await page.evaluate(seenByPage) };
  const session = await page.evaluate(() => window.wireDemo.session.id);

  console.log(JSON.stringify({ session, beforeReload, parked1, ended1, parked2, ended2, toolCallViews, errors }));
} finally {
  await context.close();
}
