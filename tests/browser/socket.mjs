// Drives Debian's chromium, headless (the flags of drive.mjs), through a page
// whose script talks to a session over one WebSocket with the runtime's
// connectSession (tests/transports/test_browser_socket.py), until the page
// says it is done. Prints what the page saw, and any page error, as JSON.
// Usage: node socket.mjs URL USER_DATA_DIR [CHROMIUM]
import { chromium } from "playwright-core";

const [url, userDataDir, executablePath = "/usr/bin/chromium"] = process.argv.slice(2);
const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-dev-shm-usage",
];

const context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args: FLAGS });
try {
  const errors = [];
  const page = await context.newPage();
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.state === "done", null, { timeout: 60_000 });
  const seen = await page.evaluate(() => window.seen);
  console.log(JSON.stringify({ ...seen, errors }));
} finally {
  await context.close();
}
