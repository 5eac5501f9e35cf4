// The operator's page: one stream (or one check) on one image. It shows the image with the region of the
// pending question as an outline (captions go in the legend under the image, never over the objects
// asked about), the question in English, the stream's answers so far, and every label instantiated so
// far with the question that defined it (pointing at a label draws its region and marker). Holding H
// hides every overlay. Answers go with buttons or the keys y / n / a; u takes the last answer back, in
// a stream and in a check alike. A new question takes no answer in its first `settle_ms` on screen, and
// a held key answers once (issue 38): a double press never answers the next question unseen, and a
// press refused says why. On a uniqueness question the operator may first click the object they mean: a
// yes then stores that point, and the label is drawn at it from then on. After an answer the next
// question is proposed by a Celery task; the answer's response waits for it a bounded time and carries
// it (vtt_site.wakeups). Should the proposal take longer, the stream is `proposing` and the page asks for
// it every 250 ms until it is there.

import { api } from "./api.js";
import { make } from "./svg.js";
import { installShortcuts } from "./shortcuts.js";

const POLL_MS = 250;
const MAX_POLL_MS = 4000;
const COLOURS = 6; // label colours c0..c5 (truthing.css), by the label's position in the list
const data = JSON.parse(document.getElementById("page-data").textContent);
const root = document.querySelector("[data-role=workspace]");
const part = (role) => root.querySelector(`[data-role=${role}]`);
const svg = part("canvas");
const answers = [...root.querySelectorAll("[data-answer]")];
const undoButton = root.querySelector("[data-action=undo]");
const isStream = data.work.kind === "stream";
const SETTLE_MS = data.settle_ms;

let work = data.work;
let busy = false; // a request is on its way: keys and buttons wait
let shownAt = performance.now(); // when the pending question appeared: for `seconds`, and to settle
let shownKey = null; // the state and step shown since `shownAt`: a new one restarts the clock
let settleTimer = null;
let mark = null; // [x, y]: the object the operator clicked for the pending uniqueness question
let markedStep = null; // the step `mark` belongs to

// --- the image and the overlays ----------------------------------------------------------------------

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
const regionLayer = make("g", { class: "regions overlay" });
const markerLayer = make("g", { class: "markers overlay" });
const hoverLayer = make("g", { class: "regions hover overlay" });
svg.replaceChildren(background, regionLayer, markerLayer, hoverLayer);
// On a phone the stage takes the picture's shape instead of a fixed height (truthing.css).
root.style.setProperty("--aspect", `${width} / ${height}`);

const regionOf = (question) => question?.region?.box || null;
const labelEntry = (name) => work.labels.find((entry) => entry.label === name);
const colourOf = (name) => `c${Math.max(0, work.labels.findIndex((e) => e.label === name)) % COLOURS}`;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const joined = (names) => (names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`);

// Image pixels per screen pixel: markers and their tags keep one size on screen whatever the zoom.
function pixelsPerScreenPixel() {
  const rect = svg.getBoundingClientRect();
  return rect.width && rect.height ? Math.max(width / rect.width, height / rect.height) : 1;
}

function regionRect(box, className) {
  const [x, y, w, h] = box;
  const group = make("g", { class: className });
  group.append(make("rect", { x, y, width: w, height: h, class: "region" }));
  return group;
}

// A label's marker: a ring at the point the operator clicked, with the label in small type beside it.
function marker([x, y], name, className) {
  const k = pixelsPerScreenPixel();
  const group = make("g", { class: `marker ${className}`, "data-label": name });
  group.append(make("circle", { cx: x, cy: y, r: 9 * k, class: "halo" }));
  group.append(make("circle", { cx: x, cy: y, r: 9 * k, class: "ring" }));
  group.append(make("circle", { cx: x, cy: y, r: 2 * k, class: "dot" }));
  const tag = make("text", { x: x + 12 * k, y: y - 8 * k, class: "tag-text", "font-size": 12 * k });
  tag.textContent = name;
  group.append(tag);
  return group;
}

// The labels a question names (attribute and relationship questions), in order.
function namedLabels(question) {
  if (!question) return [];
  return [question.label, question.subject, question.object].filter(Boolean);
}

const isUnique = () =>
  isStream && work.state === "pending" && data.labelling_kinds.includes(work.pending?.question?.kind);

// The label a yes to the pending uniqueness question makes: the next of its type.
function nextLabel() {
  const type = work.pending.question.type;
  return `${type} ${work.labels.filter((e) => e.label.startsWith(`${type} `)).length + 1}`;
}

// What the overlays mean: those drawn for the pending question, then those of what is pointed at (kept
// apart, since a render redraws the first and leaves the pointed-at overlay as it is).
let legendShown = [];
let legendPointed = [];

function showLegend() {
  const legendBox = part("legend");
  legendBox.replaceChildren(...legendShown, ...legendPointed);
  legendBox.hidden = !legendShown.length && !legendPointed.length;
}

function legendItem(swatch, text) {
  const item = document.createElement("span");
  item.className = "legend-item";
  const key = document.createElement("span");
  key.className = `swatch ${swatch}`;
  item.append(key, ` ${text}`);
  return item;
}

function drawOverlays() {
  const question = work.pending?.question;
  const note = part("region-note");
  const legend = [];
  const shapes = [];
  const box = work.state === "pending" ? regionOf(question) : null;
  const named = work.state === "pending" ? namedLabels(question).map(labelEntry).filter(Boolean) : [];
  if (box) {
    shapes.push(regionRect(box, "pending"));
    legend.push(legendItem("region-swatch", "the designated region"));
    note.textContent = `The designated region (outlined): ${Math.round(box[2])}×${Math.round(box[3])} px at (${Math.round(box[0])}, ${Math.round(box[1])}).`;
  } else {
    const drawn = named.filter((entry) => regionOf(entry.question));
    for (const entry of drawn) shapes.push(regionRect(regionOf(entry.question), `named ${colourOf(entry.label)}`));
    for (const entry of drawn) legend.push(legendItem(`named-swatch ${colourOf(entry.label)}`, `where ${entry.label} was found`));
    note.textContent = drawn.length
      ? `Drawn (dashed): ${drawn.length === 1 ? "the region where" : "the regions where"} ${joined(drawn.map((e) => e.label))} ${drawn.length === 1 ? "was" : "were"} found.`
      : "";
  }
  regionLayer.replaceChildren(...shapes);
  // Every marked label, so that "not previously instantiated" can be seen; the ones asked about stand out.
  const names = new Set(named.map((e) => e.label));
  const marks = work.labels.filter((e) => e.point).map((e) =>
    marker(e.point, e.label, `${colourOf(e.label)}${names.has(e.label) ? " named" : ""}`));
  if (isUnique() && mark && markedStep === work.pending.step) {
    marks.push(marker(mark, `${nextLabel()}?`, "pick"));
    legend.push(legendItem("pick-swatch", `your pick: a yes makes it ${nextLabel()}`));
  }
  markerLayer.replaceChildren(...marks);
  for (const e of work.labels.filter((e) => e.point)) legend.push(legendItem(`marker-swatch ${colourOf(e.label)}`, e.label));
  legendShown = legend;
  showLegend();
}

// A past answer pointed at: the region its question was about, or where the labels it names were found.
// The region is drawn white and dotted on a dark halo, unlike a label's region (dashed, in the label's
// colour) and the pending question's (solid yellow), and the legend names it while it is drawn.
function showAnswered(entry) {
  const box = entry && regionOf(entry.question);
  const named = entry && !box ? namedLabels(entry.question).map(labelEntry).filter(Boolean) : [];
  const shapes = [];
  const legend = [];
  if (box) {
    const region = regionRect(box, "answered-region");
    region.prepend(make("rect", { x: box[0], y: box[1], width: box[2], height: box[3], class: "halo" }));
    shapes.push(region);
    legend.push(legendItem("answered-swatch", `the region of answer ${entry.step + 1}`));
  }
  for (const label of named.filter((e) => regionOf(e.question))) {
    shapes.push(regionRect(regionOf(label.question), `label-region ${colourOf(label.label)}`));
    legend.push(legendItem(`named-swatch ${colourOf(label.label)}`, `where ${label.label} was found`));
  }
  hoverLayer.replaceChildren(...shapes);
  legendPointed = legend;
  showLegend();
}

function showLabel(entry) {
  const box = entry && regionOf(entry.question);
  const shapes = box ? [regionRect(box, `label-region ${colourOf(entry.label)}`)] : [];
  if (entry?.point) shapes.push(marker(entry.point, entry.label, `${colourOf(entry.label)} named`));
  hoverLayer.replaceChildren(...shapes);
  legendPointed = [];
  showLegend();
}

// While H is held (or the button pressed), the picture is shown bare: nothing tints what is asked about.
function bare(on) {
  svg.classList.toggle("bare", on);
  part("hide")?.setAttribute("aria-pressed", String(on));
}

// A click on the picture, on a uniqueness question: the object the operator means.
function pick(event) {
  if (!isUnique() || busy) return;
  const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
  if (p.x < 0 || p.y < 0 || p.x > width || p.y > height) return;
  mark = [Math.round(p.x * 10) / 10, Math.round(p.y * 10) / 10];
  markedStep = work.pending.step;
  render();
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
      name.className = `label-name ${colourOf(entry.label)}`;
      name.textContent = entry.label;
      const text = document.createElement("span");
      text.className = "muted";
      const where = entry.point ? " (marked on the image)" : "";
      text.textContent = ` question ${entry.step + 1}: ${entry.text}${where}`;
      item.append(name, text);
      return item;
    }),
  );
}

function renderHistory() {
  const list = part("history");
  if (!work.history.length) {
    const empty = document.createElement("li");
    empty.className = "muted";
    empty.textContent = isStream ? "No answer yet." : "You have answered nothing yet.";
    list.replaceChildren(empty);
    return;
  }
  list.replaceChildren(
    ...work.history.map((entry) => {
      const item = document.createElement("li");
      item.tabIndex = 0; // pointing at it (or focusing it) outlines what it was about
      item.dataset.step = String(entry.step);
      const number = document.createElement("span");
      number.className = "number";
      number.textContent = `${entry.step + 1}.`;
      const text = document.createElement("span");
      text.textContent = ` ${entry.text} `;
      const given = document.createElement("strong");
      given.className = `answer-${entry.answer}`;
      given.textContent = entry.answer;
      item.append(number, text, given);
      const box = regionOf(entry.question);
      if (box) {
        const where = document.createElement("span");
        where.className = "muted small region-of";
        where.textContent = ` (region ${Math.round(box[2])}×${Math.round(box[3])} at ${Math.round(box[0])}, ${Math.round(box[1])})`;
        item.append(where);
      }
      if (entry.label) {
        const made = document.createElement("span");
        made.className = `label-name ${colourOf(entry.label)}`;
        made.textContent = ` → ${entry.label}`;
        item.append(made);
      }
      return item;
    }),
  );
  list.scrollTop = list.scrollHeight;
}

function renderHint() {
  const hint = part("pick-hint");
  if (!hint) return;
  hint.hidden = !isUnique();
  if (!isUnique()) return;
  const type = work.pending.question.type;
  hint.textContent = mark && markedStep === work.pending.step
    ? `Marked: Yes makes the ${type} you clicked ${nextLabel()}. Click again to move the mark; Esc clears it.`
    : `If yes: click the ${type} it singles out first (optional), so that ${nextLabel()} means that one.`;
}

function render() {
  root.dataset.state = work.state;
  root.dataset.step = work.pending ? String(work.pending.step) : "";
  root.dataset.pick = String(isUnique());
  if (!isUnique() || markedStep !== work.pending?.step) mark = markedStep = null;
  const pending = work.state === "pending" && work.pending;
  part("number").textContent = work.pending ? `${work.pending.step + 1}` : "";
  const question = part("question");
  if (work.state === "proposing") question.textContent = "The engine is choosing the next question…";
  else if (pending) question.textContent = work.pending.text;
  else question.textContent = isStream ? "This stream has ended." : "This check is done.";
  const settling = Boolean(pending) && !settled();
  answers.forEach((button) => (button.disabled = busy || !pending));
  answers.forEach((button) => button.classList.toggle("settling", settling));
  root.dataset.settled = String(Boolean(pending) && !settling);
  if (undoButton) undoButton.disabled = busy || work.progress.answered === 0 || work.test.state !== "truthing";
  const done = work.progress.answered;
  part("progress").textContent =
    `${plural(done, "question")} answered in this ${isStream ? "stream" : "check"} · ` +
    `${plural(work.progress.streams_left, "stream")} left in the test`;
  drawOverlays();
  renderHint();
  renderLabels();
  renderHistory();
  const banner = part("done");
  banner.hidden = work.state !== "ended";
  if (work.state === "ended") {
    part("done-message").textContent = isStream
      ? `Stream ended after ${plural(done, "answer")}. Take the next, or undo your last answer (U).`
      : `Check done: ${plural(done, "answer")}. Thank you. Take the next, or undo your last answer (U).`;
  }
}

// A question shown anew (another step, or the same step again after an undo) starts its clock: it takes
// no answer until it has been on screen SETTLE_MS.
function noteShown() {
  const key = `${work.state}:${work.pending?.step ?? ""}`;
  if (key === shownKey) return;
  shownKey = key;
  shownAt = performance.now();
  clearTimeout(settleTimer);
  if (work.state === "pending") settleTimer = setTimeout(render, SETTLE_MS);
}

const settled = () => performance.now() - shownAt >= SETTLE_MS;

// Why a press did nothing, for a moment: a refused press is never silent.
let refusedTimer = null;
function refused(text) {
  const note = part("settle-note");
  note.textContent = text;
  note.hidden = false;
  clearTimeout(refusedTimer);
  refusedTimer = setTimeout(() => (note.hidden = true), 2000);
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
  noteShown();
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
  if (work.state !== "pending" || !work.pending) return;
  if (busy) return refused("Not taken: your last answer is still on its way.");
  if (!settled()) return refused(`Not taken: this question appeared ${Math.round(performance.now() - shownAt)} ms ago. Read it, then answer.`);
  const seconds = Math.round((performance.now() - shownAt) / 100) / 10;
  const body = { step: work.pending.step, answer: value, seconds };
  if (value === "yes" && isUnique() && mark && markedStep === work.pending.step) body.point = mark;
  send("POST", data.urls.answer, body);
}

function undo() {
  if (work.progress.answered === 0) return;
  if (busy) return refused("Not taken: your last answer is still on its way.");
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
const history = part("history");
const answeredEntry = (item) => work.history.find((entry) => String(entry.step) === item?.dataset.step);
for (const [on, off] of [["mouseover", "mouseout"], ["focusin", "focusout"]]) {
  labels.addEventListener(on, (e) => showLabel(labelEntry(e.target.closest("li")?.dataset.label)));
  labels.addEventListener(off, () => showLabel(null));
  history.addEventListener(on, (e) => showAnswered(answeredEntry(e.target.closest("li"))));
  history.addEventListener(off, () => showAnswered(null));
}

svg.addEventListener("click", pick);
window.addEventListener("resize", () => drawOverlays());
const hide = part("hide");
hide?.addEventListener("pointerdown", () => bare(true));
for (const off of ["pointerup", "pointerleave", "pointercancel"]) hide?.addEventListener(off, () => bare(false));
document.addEventListener("keyup", (e) => e.key.toLowerCase() === "h" && bare(false));
window.addEventListener("blur", () => bare(false));

installShortcuts([
  { keys: ["h"], run: () => bare(true) },
  { keys: ["Escape"], run: () => { if (!mark) return false; mark = markedStep = null; render(); } },
  { keys: ["y"], once: true, run: () => answer("yes") },
  { keys: ["n"], once: true, run: () => answer("no") },
  { keys: ["a"], once: true, run: () => answer("ambiguous") },
  { keys: ["u"], once: true, run: () => undo() },
]);

update(null);
document.body.dataset.ready = "true";
