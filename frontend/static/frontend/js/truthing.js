// The operator's page: one stream (or one check) on one image. It shows the image with the region of the
// pending question, the question in English, every label instantiated so far with the question that
// defined it (pointing at a label draws its region), and answers with buttons or the keys y / n / a;
// u takes the last answer back (streams only). After an answer the next question is proposed by a
// Celery task: the stream is `proposing` until it exists, and the page asks for it every 250 ms.

import { api } from "./api.js";
import { make } from "./svg.js";
import { installShortcuts } from "./shortcuts.js";

const POLL_MS = 250;
const MAX_POLL_MS = 4000;
const data = JSON.parse(document.getElementById("page-data").textContent);
const root = document.querySelector("[data-role=workspace]");
const part = (role) => root.querySelector(`[data-role=${role}]`);
const svg = part("canvas");
const answers = [...root.querySelectorAll("[data-answer]")];
const undoButton = root.querySelector("[data-action=undo]");
const isStream = data.work.kind === "stream";

let work = data.work;
let busy = false; // a request is on its way: keys and buttons wait
let shownAt = performance.now(); // when the pending question appeared, for `seconds`

// --- the image and the regions ---------------------------------------------------------------------

const { width, height, file_url: fileUrl } = work.image;
const size = { x: 0, y: 0, width, height };
const background = fileUrl
  ? make("image", { ...size, href: fileUrl, class: "picture" })
  : make("rect", { ...size, class: "no-picture" });
if (fileUrl) {
  background.addEventListener("load", () => (document.body.dataset.imageLoaded = "true"), { once: true });
  background.addEventListener("error", () => {
    svg.classList.add("broken");
    showError("The picture did not load: you may not be a member of its collection (ask an admin), or the server is unreachable. Answer nothing you cannot see: leave the work.");
  }, { once: true });
}
const regionLayer = make("g", { class: "regions" });
const hoverLayer = make("g", { class: "regions hover" });
svg.replaceChildren(background, regionLayer, hoverLayer);

function regionRect(box, className, caption) {
  const [x, y, w, h] = box;
  const group = make("g", { class: className });
  group.append(make("rect", { x, y, width: w, height: h, class: "region" }));
  if (caption) {
    const text = make("text", { x: x + 6, y: y + Math.max(18, Math.min(h, 28)), class: "region-caption" });
    text.textContent = caption;
    group.append(text);
  }
  return group;
}

const regionOf = (question) => question?.region?.box || null;
const labelEntry = (name) => work.labels.find((entry) => entry.label === name);

// The labels a question names (attribute and relationship questions), in order.
function namedLabels(question) {
  if (!question) return [];
  return [question.label, question.subject, question.object].filter(Boolean);
}

function drawPending() {
  const question = work.pending?.question;
  const note = part("region-note");
  const shapes = [];
  const box = regionOf(question);
  if (box) {
    shapes.push(regionRect(box, "pending", "designated region"));
    note.textContent = `The designated region: ${Math.round(box[2])}×${Math.round(box[3])} px at (${Math.round(box[0])}, ${Math.round(box[1])}).`;
  } else {
    const named = namedLabels(question).map(labelEntry).filter((entry) => entry && regionOf(entry.question));
    for (const entry of named) shapes.push(regionRect(regionOf(entry.question), "named", entry.label));
    note.textContent = named.length ? `Drawn: the region where ${named.map((e) => e.label).join(" and ")} was found.` : "";
  }
  regionLayer.replaceChildren(...shapes);
}

function showLabel(entry) {
  const box = entry && regionOf(entry.question);
  hoverLayer.replaceChildren(...(box ? [regionRect(box, "label-region", entry.label)] : []));
}

// --- the side panel ----------------------------------------------------------------------------------

function renderLabels() {
  const list = part("labels");
  if (!work.labels.length) {
    const empty = document.createElement("li");
    empty.className = "muted";
    empty.textContent = "None yet: a yes to “Is there a unique …?” instantiates one.";
    list.replaceChildren(empty);
    return;
  }
  list.replaceChildren(
    ...work.labels.map((entry) => {
      const item = document.createElement("li");
      item.tabIndex = 0;
      item.dataset.label = entry.label;
      const name = document.createElement("strong");
      name.textContent = entry.label;
      const text = document.createElement("span");
      text.className = "muted";
      text.textContent = ` question ${entry.step + 1}: ${entry.text}`;
      item.append(name, text);
      return item;
    }),
  );
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function render() {
  root.dataset.state = work.state;
  root.dataset.step = work.pending ? String(work.pending.step) : "";
  const pending = work.state === "pending" && work.pending;
  part("number").textContent = work.pending ? `${work.pending.step + 1}` : "";
  const question = part("question");
  if (work.state === "proposing") question.textContent = "The engine is choosing the next question…";
  else if (pending) question.textContent = work.pending.text;
  else question.textContent = isStream ? "This stream has ended." : "This check is done.";
  answers.forEach((button) => (button.disabled = busy || !pending));
  if (undoButton) undoButton.disabled = busy || work.progress.answered === 0 || work.test.state !== "truthing";
  const done = work.progress.answered;
  part("progress").textContent =
    `${plural(done, "question")} answered in this ${isStream ? "stream" : "check"} · ` +
    `${plural(work.progress.streams_left, "stream")} left in the test`;
  drawPending();
  renderLabels();
  const banner = part("done");
  banner.hidden = work.state !== "ended";
  if (work.state === "ended") {
    part("done-message").textContent = isStream
      ? `Stream ended after ${plural(done, "answer")}. Take the next, or undo your last answer (U).`
      : `Check done: ${plural(done, "answer")}. Thank you.`;
  }
  if (pending) shownAt = performance.now();
}

function showError(text) {
  part("error").textContent = text;
  part("error").hidden = !text;
}

// --- talking to the API --------------------------------------------------------------------------------

let pollTimer = null;

function schedulePoll(delay = POLL_MS) {
  clearTimeout(pollTimer);
  if (work.state === "proposing") pollTimer = setTimeout(() => poll(delay), delay);
}

async function poll(delay) {
  try {
    const fresh = await api("GET", data.urls.read);
    showError("");
    update(fresh);
    schedulePoll(POLL_MS);
  } catch (error) {
    showError(`Waiting for the next question: ${error.message}`);
    schedulePoll(Math.min(delay * 2, MAX_POLL_MS));
  }
}

function update(fresh) {
  if (fresh) work = fresh;
  render();
  schedulePoll();
}

async function send(method, url, body) {
  if (busy) return;
  busy = true;
  render();
  try {
    const fresh = await api(method, url, body);
    showError("");
    busy = false;
    update(fresh);
  } catch (error) {
    busy = false;
    showError(`Not recorded: ${error.message}`);
    // The server may know better (a question answered in another tab): show what it has now.
    try {
      update(await api("GET", data.urls.read));
    } catch {
      render();
    }
  }
}

function answer(value) {
  if (busy || work.state !== "pending" || !work.pending) return;
  const seconds = Math.round((performance.now() - shownAt) / 100) / 10;
  send("POST", data.urls.answer, { step: work.pending.step, answer: value, seconds });
}

function undo() {
  if (!isStream || busy || work.progress.answered === 0) return;
  send("POST", data.urls.undo);
}

async function leave() {
  try {
    await api("POST", data.urls.leave);
    window.location.assign(data.urls.home);
  } catch (error) {
    showError(`Not left: ${error.message}`);
  }
}

// --- wiring ------------------------------------------------------------------------------------------

answers.forEach((button) => button.addEventListener("click", () => answer(button.dataset.answer)));
undoButton?.addEventListener("click", undo);
root.querySelector("[data-action=leave]").addEventListener("click", leave);
const labels = part("labels");
for (const [on, off] of [["mouseover", "mouseout"], ["focusin", "focusout"]]) {
  labels.addEventListener(on, (e) => showLabel(labelEntry(e.target.closest("li")?.dataset.label)));
  labels.addEventListener(off, () => showLabel(null));
}

installShortcuts([
  { keys: ["y"], run: () => answer("yes") },
  { keys: ["n"], run: () => answer("no") },
  { keys: ["a"], run: () => answer("ambiguous") },
  ...(isStream ? [{ keys: ["u"], run: () => undo() }] : []),
]);

update(null);
document.body.dataset.ready = "true";
