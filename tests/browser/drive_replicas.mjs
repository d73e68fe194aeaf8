// Drives Debian's chromium, headless (the flags of drive.mjs), through the
// web demo served by two replicas over one Redis
// (tests/transports/test_browser_replicas.py): the page, from replica 1,
// follows the session there while its turn and its answer go to replica 2.
// When the reply parks on its tool call: Allow; then wait for the reply's
// end. Prints the page's Msgs (JSON.stringify of each), its session, every
// request it made and any page error, as JSON.
// Usage: node drive_replicas.mjs URL USER_DATA_DIR [CHROMIUM]
import { chromium } from "playwright-core";

const [url, userDataDir, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-dev-shm-usage",
];
const WAIT = { timeout: 30_000 };

const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath, headless: true, args: FLAGS, viewport: { width: 900, height: 1100 },
});
try {
  const errors = [];
  const requests = [];
  const page = await context.newPage();
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("response", (response) => { // at its headers: a stream is still open when the page is read
    requests.push({ method: response.request().method(), url: response.url(), status: response.status() });
  });
  page.on("requestfailed", (request) => requests.push({ method: request.method(), url: request.url(),
    status: null, failure: request.failure()?.errorText ?? "" }));
  await page.goto(url);
  await page.waitForSelector("article:nth-of-type(1) section.confirm button.allow", WAIT);
  const parked = await page.evaluate(() => window.wireDemo.texts());
  await page.click("article:nth-of-type(1) section.confirm button.allow");
  await page.waitForFunction(() => document.body.dataset.state === "ended", null, WAIT);
  const seen = await page.evaluate(() => ({ session: window.wireDemo.session, texts: window.wireDemo.texts(),
    error: window.wireDemo.error ?? null, status: document.getElementById("status").textContent }));
  console.log(JSON.stringify({ ...seen, parked, requests, errors }));
} finally {
  await context.close();
}
