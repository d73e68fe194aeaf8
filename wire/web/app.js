// The page of `python -m wire demo --web`: a chat session followed with the
// runtime's followSession, every reply rendered as its Msg grows. When a
// reply parks on a tool call to confirm, the call's arguments are shown with
// Allow and Deny; the click posts the answer (answer(), agentscope's chat
// body) and the reply goes on in the same stream. When the page goes away
// (a reload), it keeps the conversation and the last entry id in
// sessionStorage and resumes from them, so every earlier reply is still there.
// Turns and answers go to the URL the server named when it made the session
// (its `chat` field), which may be another replica's.
//
// Blocks are kept by reply and id and only the ones an event changed are
// redrawn; a tool call's input is shown through PartialJSON, fed only the
// characters added since the last redraw, so its arguments fill in at a cost
// linear in their length.
import {
  answer, confirmation, Conversation, followSession, PartialJSON, userMsg, waiting,
} from "/runtime.js";

const STORAGE = "wire-demo-session"; // {session, lastEventId, replies} when the page went away
const PROMPT = "Why did last night's build get slower?";
const chat = document.getElementById("chat");
const status = document.getElementById("status");
const again = document.getElementById("again");
const replyViews = new Map(); // reply id -> {article, blocks: Map("type:id" -> view), confirm}
const demo = { session: undefined, events: 0, checkpoints: 0, restored: 0, error: undefined, follower: undefined };
window.wireDemo = demo; // read by the browser test
demo.texts = () => [...demo.follower.conversation.replies.values()].map((msg) => JSON.stringify(msg));

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function argumentList(values) {
  const list = element("dl");
  for (const [key, value] of Object.entries(values ?? {})) {
    list.append(element("dt", "", key), element("dd", "", typeof value === "string" ? value : JSON.stringify(value)));
  }
  return list;
}

function replyView(msg) {
  let view = replyViews.get(msg.id);
  if (view === undefined) {
    const article = element("article", "reply");
    article.dataset.reply = msg.id;
    article.append(element("div", "who", msg.name));
    view = { article, blocks: new Map(), confirm: undefined };
    replyViews.set(msg.id, view);
    chat.append(article);
  }
  return view;
}

function blockView(reply, block) {
  const key = `${block.type}:${block.id}`; // a tool call and its result share an id
  let view = reply.blocks.get(key);
  if (view === undefined) {
    const section = element("section", block.type);
    section.dataset.block = block.id;
    const label = { thinking: "thinking", text: "", tool_call: `tool call · ${block.name}`,
      tool_result: `result · ${block.name}`, data: `data · ${block.name ?? ""}` }[block.type] ?? block.type;
    if (label) section.append(element("div", "label", label));
    view = { element: section, shown: -1, partial: undefined, body: section.appendChild(element("div", "body")) };
    reply.blocks.set(key, view);
    reply.article.insertBefore(section, reply.confirm?.element ?? null);
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
  view.body.replaceChildren(view.partial.failed ? element("pre", "", block.input) : argumentList(parser.value));
  view.element.dataset.state = block.state ?? "pending";
}

function resultText(block) {
  if (typeof block.output === "string") return block.output;
  return block.output.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
}

// The Allow / Deny panel of a reply parked on calls to confirm; gone once answered.
function drawConfirm(reply, msg) {
  const calls = waiting(msg).confirm;
  if (calls.length === 0) {
    reply.confirm?.element.remove();
    reply.confirm = undefined;
    return;
  }
  if (reply.confirm !== undefined) return;
  const panel = element("section", "confirm");
  panel.append(element("div", "label", "confirm"));
  for (const call of calls) {
    panel.append(element("p", "", `${msg.name} wants to run ${call.name} with:`));
    let values;
    try {
      values = JSON.parse(call.input);
    } catch {
      values = { input: call.input };
    }
    panel.append(argumentList(values));
  }
  const buttons = element("div", "buttons");
  const allow = buttons.appendChild(element("button", "allow", "Allow"));
  const deny = buttons.appendChild(element("button", "deny", "Deny"));
  panel.append(buttons);
  const decide = async (allowed) => {
    allow.disabled = deny.disabled = true;
    try {
      await answer(demo.session.chat ?? "/chat", { agentId: "demo", sessionId: demo.session.id,
        input: confirmation(msg, allowed) });
    } catch (error) { // a 409 when another tab answered first: the stream shows what happened
      status.textContent = `the answer was refused: ${error.message}`;
      allow.disabled = deny.disabled = false;
    }
  };
  allow.addEventListener("click", () => decide(true));
  deny.addEventListener("click", () => decide(false));
  reply.confirm = { element: panel };
  reply.article.append(panel);
}

function drawReply(msg) {
  const reply = replyView(msg);
  for (const block of msg.content) {
    const view = blockView(reply, block);
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
  drawConfirm(reply, msg);
  reply.article.dataset.state = waiting(msg).state;
}

// Every reply, and none that the conversation no longer has (after a wire.restart).
function drawAll(conversation) {
  for (const [id, view] of replyViews) {
    if (!conversation.replies.has(id)) {
      view.article.remove();
      replyViews.delete(id);
    }
  }
  for (const msg of conversation.replies.values()) drawReply(msg);
}

function showState(follower) {
  const last = follower.conversation.last;
  const state = last === undefined ? "waiting" : waiting(last).state;
  document.body.dataset.state = state;
  again.hidden = state !== "ended";
  const replies = follower.conversation.replies.size;
  status.textContent = `${demo.session.id}: ${replies} ${replies === 1 ? "reply" : "replies"}, ${demo.events} events, ` +
    `connection ${follower.connections}` + (demo.restored ? `, resumed with ${demo.restored} kept` : "") +
    (demo.checkpoints ? `, ${demo.checkpoints} checkpoints` : "") +
    (state === "parked" ? " · waiting for your answer" : "");
}

async function ask() {
  again.hidden = true;
  await answer(demo.session.chat ?? "/chat", { agentId: "demo", sessionId: demo.session.id,
    input: userMsg("you", PROMPT) });
}

async function main() {
  const saved = JSON.parse(sessionStorage.getItem(STORAGE) ?? "null");
  sessionStorage.removeItem(STORAGE);
  let conversation = new Conversation();
  if (saved !== null) { // a reload: the replies as they were, and where to read on
    demo.session = saved.session;
    conversation = new Conversation(...saved.replies.map((text) => JSON.parse(text)));
    demo.restored = saved.replies.length;
  } else {
    const created = await fetch("/sessions", { method: "POST" });
    demo.session = await created.json();
  }
  const follower = followSession(demo.session.stream, {
    conversation,
    lastEventId: saved?.lastEventId ?? "",
    onEvent(event, msg, conversation) {
      demo.events++;
      if (event.type === "CUSTOM" && event.name === "wire.checkpoint") demo.checkpoints++;
      if (msg !== undefined) drawReply(msg);
      else drawAll(conversation);
      showState(follower);
    },
    onReconnect(attempt, delayMs) {
      status.textContent = `connection lost; reconnecting in ${Math.round(delayMs)} ms (attempt ${attempt})`;
    },
  });
  demo.follower = follower;
  addEventListener("pagehide", () => {
    sessionStorage.setItem(STORAGE, JSON.stringify({ session: demo.session, lastEventId: follower.lastEventId,
      replies: demo.texts() }));
  });
  again.addEventListener("click", () => ask().catch(fail));
  drawAll(conversation);
  showState(follower);
  if (saved === null) await ask();
  await follower.done; // the session was closed by the server
  document.body.dataset.state = "closed";
}

function fail(error) {
  demo.error = String(error);
  document.body.dataset.state = "error";
  status.textContent = `error: ${error}` + (error.status === 404 ? " (the demo was restarted: reload for a new session)" : "");
}

main().catch(fail);
