// The page of `python -m wire demo --web`: follows one reply with the
// runtime's followReply and renders its Msg as it grows. Blocks are kept by
// id and only the ones an event changed are redrawn; a tool call's input is
// shown through PartialJSON, fed only the characters added since the last
// redraw, so its arguments fill in at a cost linear in their length.
import { followReply, PartialJSON } from "/runtime.js";

const STORAGE = "wire-demo-reply"; // {id, events, lastEventId} of the reply in progress
const main = document.getElementById("msg");
const status = document.getElementById("status");
// "type:id" (a tool call and its result share an id) -> {element, body, shown, partial}
const views = new Map();
const demo = { msg: undefined, events: 0, checkpoints: 0, connections: 0, done: false, error: undefined };
window.wireDemo = demo; // read by the browser test

async function startReply() {
  const saved = JSON.parse(sessionStorage.getItem(STORAGE) ?? "null");
  if (saved !== null) return saved; // a reload mid-reply: resume it
  const response = await fetch("/replies", { method: "POST" });
  const reply = await response.json();
  return { ...reply, lastEventId: "" };
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function viewOf(block) {
  const key = `${block.type}:${block.id}`;
  let view = views.get(key);
  if (view === undefined) {
    const section = element("section", block.type);
    section.dataset.block = block.id;
    const label = { thinking: "thinking", text: "", tool_call: `tool call · ${block.name}`,
      tool_result: `result · ${block.name}`, data: `data · ${block.name ?? ""}` }[block.type] ?? block.type;
    if (label) section.append(element("div", "label", label));
    view = { element: section, shown: -1, partial: undefined, body: section.appendChild(element("div", "body")) };
    views.set(key, view);
    main.append(section);
  }
  return view;
}

function drawToolCall(view, block) {
  view.partial ??= { parser: new PartialJSON(), fed: 0, failed: false };
  const { parser } = view.partial;
  if (block.input.length > view.partial.fed && !view.partial.failed) {
    try {
      parser.feed(block.input.slice(view.partial.fed));
    } catch (error) { // a model may stream arguments that are not JSON: show them as they are
      view.partial.failed = true;
      console.warn(`tool call ${block.id}: ${error}`);
    }
    view.partial.fed = block.input.length;
  }
  if (view.partial.failed) {
    view.body.replaceChildren(element("pre", "", block.input));
    return;
  }
  const list = element("dl");
  for (const [key, value] of Object.entries(parser.value ?? {})) {
    list.append(element("dt", "", key), element("dd", "", typeof value === "string" ? value : JSON.stringify(value)));
  }
  view.body.replaceChildren(list);
  view.element.dataset.state = block.state ?? "pending";
}

function resultText(block) {
  if (typeof block.output === "string") return block.output;
  return block.output.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
}

function draw(msg) {
  for (const block of msg.content) {
    const view = viewOf(block);
    const finished = block.finished_at != null;
    const size = JSON.stringify(block).length; // whether it changed, cheaply enough for a page this size
    if (size === view.shown) continue;
    view.shown = size;
    view.element.classList.toggle("streaming", !finished && block.type !== "data");
    if (block.type === "thinking") view.body.textContent = block.thinking;
    else if (block.type === "text") view.body.textContent = block.text;
    else if (block.type === "tool_call") drawToolCall(view, block);
    else if (block.type === "tool_result") {
      view.body.replaceChildren(element("pre", "", resultText(block)));
      view.element.dataset.state = block.state ?? "running";
    } else if (block.type === "data" && finished) {
      const { source } = block;
      const img = element("img");
      img.alt = block.name ?? "data";
      img.src = source.type === "base64" ? `data:${source.media_type};base64,${source.data}` : source.url;
      view.body.replaceChildren(img);
    }
  }
}

async function main_() {
  const reply = await startReply();
  const follower = followReply(reply.events, {
    lastEventId: reply.lastEventId,
    onEvent(event, msg) {
      demo.events++;
      if (event.type === "CUSTOM" && event.name === "wire.checkpoint") demo.checkpoints++;
      demo.msg = msg;
      draw(msg);
      sessionStorage.setItem(STORAGE, JSON.stringify({ ...reply, lastEventId: follower.lastEventId }));
      status.textContent = `${reply.id}: ${demo.events} events, connection ${follower.connections}` +
        (demo.checkpoints ? ", resumed from a checkpoint" : "");
    },
    onReconnect(attempt, delayMs) {
      status.textContent = `connection lost; reconnecting in ${Math.round(delayMs)} ms (attempt ${attempt})`;
    },
  });
  document.body.dataset.state = "streaming";
  const msg = await follower.done;
  sessionStorage.removeItem(STORAGE);
  demo.connections = follower.connections;
  demo.done = true;
  document.body.dataset.state = "done";
  status.textContent = `${reply.id}: ${demo.events} events, reply ${msg.finished_reason}` +
    (demo.checkpoints ? " (resumed from a checkpoint)" : "");
}

main_().catch((error) => {
  demo.error = String(error);
  document.body.dataset.state = "error";
  status.textContent = `error: ${error}`;
});
