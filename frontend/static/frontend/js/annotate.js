// The annotator's page: draw, move, resize and delete boxes, type them, tick attributes, link them,
// then save (PUT of the whole annotation) and submit for review. Nothing the user did is thrown away
// when the server refuses a save: the store is only replaced by the server's answer on success, and
// the server's message is shown beside the box, field or relationship it names.

import { api } from "./api.js";
import { locate } from "./errors.js";
import { LeaseClock } from "./lease.js";
import { LinkForm } from "./link.js";
import { SceneView, readPageData } from "./scene_view.js";
import { installShortcuts } from "./shortcuts.js";

const data = readPageData();
const $ = (selector) => document.querySelector(selector);
const ui = {
  draw: $("[data-action=draw]"),
  newType: $("[data-role=new-type]"),
  undo: $("[data-action=undo]"),
  save: $("[data-action=save]"),
  submit: $("[data-action=submit]"),
  release: $("[data-action=release]"),
  state: $("[data-role=save-state]"),
  error: $("[data-role=error]"),
  notice: $("[data-role=notice]"),
  done: $("[data-role=done]"),
};
let saving = null; // the save in flight, so a second Ctrl+S waits for it instead of racing it
let finished = false; // submitted or released: the page no longer edits
let started = false; // the view announces its first render before the rest of this module has run

const view = new SceneView(data, {
  editable: true,
  hooks: {
    draw: (bbox) => view.select(view.store.add({ type: ui.newType.value, bbox })),
    commit: (key, bbox) => view.store.setBox(key, bbox),
    pick: (key) => link.pick(key),
    removeRelationship: (index) => view.store.removeRelationship(index),
    changed: () => started && showState(),
    editorActions: {
      setType,
      setBox: (key, bbox) => view.store.setBox(key, bbox),
      setAttributes: (key, values, known) => view.store.setAttributes(key, values, known),
      remove: (key) => view.store.remove(key),
      link: (key) => link.open(key),
    },
  },
});
const store = view.store;
const link = new LinkForm($("[data-role=link]"), {
  store,
  vocabulary: view.vocabulary,
  onPickMode: (on) => view.layer.setPickMode(on),
  onMessage: notify,
});
store.addEventListener("change", (e) => {
  if (e.detail.kind !== "box" && e.detail.kind !== "attributes") link.refresh();
});
const lease = new LeaseClock($("[data-role=lease]"));
lease.set(data.image.lease_expires_at);

ui.newType.replaceChildren(...view.vocabulary.types.map((t) => new Option(t, t)));

// --- editing ---

function setType(key, type) {
  const dropped = store.setType(key, type);
  ui.newType.value = type; // the next box drawn is probably of the same type
  if (dropped) notify(`Removed ${dropped} relationship${dropped > 1 ? "s" : ""} the vocabulary does not allow for a ${type}; undo (Ctrl+Z) brings ${dropped > 1 ? "them" : "it"} back.`);
}

// Keys 1..9: the type of the selected box, or of the next box drawn when none is selected.
function typeByNumber(n) {
  const type = view.vocabulary.types[n - 1];
  if (!type) return;
  if (view.selected) setType(view.selected, type);
  else ui.newType.value = type;
}

function setDrawMode(on) {
  view.layer.setDrawMode(on);
  ui.draw.setAttribute("aria-pressed", String(on));
}

function nudge(dx, dy) {
  const o = store.get(view.selected);
  if (!o) return;
  const [x, y, w, h] = o.bbox;
  const nx = Math.min(Math.max(x + dx, 0), data.image.width - w);
  const ny = Math.min(Math.max(y + dy, 0), data.image.height - h);
  store.setBox(o.key, [nx, ny, w, h]);
}

function remove() {
  if (view.selected) store.remove(view.selected);
}

function toggleUnknown() {
  const o = store.get(view.selected);
  if (o) store.setAttributes(o.key, [], !o.known);
}

function escape() {
  if (view.layer.cancel() || link.close()) return;
  if (view.layer.drawMode) return setDrawMode(false);
  if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
  view.select(null);
}

// --- the server ---

function showState(text) {
  ui.undo.disabled = !store.canUndo || finished;
  if (text) ui.state.textContent = text;
  else if (!saving) ui.state.textContent = store.dirty ? "Unsaved changes" : "All changes saved";
  ui.state.classList.toggle("dirty", store.dirty);
}

function notify(text) {
  ui.notice.textContent = text;
  ui.notice.hidden = !text;
}

function showError(text) {
  ui.error.textContent = text;
  ui.error.hidden = !text;
}

async function save() {
  if (finished) return false;
  if (saving) return saving;
  saving = (async () => {
    const documentSent = store.toDocument();
    const keys = [...store.order];
    const revision = store.revision;
    ui.save.disabled = true;
    showState("Saving…");
    try {
      const record = await api("PUT", data.urls.annotation, documentSent);
      store.saved(record, revision, keys);
      view.clearErrors();
      showError("");
      lease.set(record.lease_expires_at); // the save renewed the lease
      return true;
    } catch (error) {
      refused(error, documentSent, keys);
      return false;
    } finally {
      saving = null;
      ui.save.disabled = false;
      showState();
    }
  })();
  return saving;
}

// Pin the complaint to what it names; the edits stay as they are, unsaved.
function refused(error, sent, keys) {
  const place = locate(error);
  if (place.object !== undefined && keys[place.object] && store.get(keys[place.object])) {
    const key = keys[place.object];
    view.setObjectError(key, place.slot, place.message);
    showError(`Not saved: ${view.labels.get(key)}: ${place.message}`);
  } else if (place.relationship !== undefined && sent.relationships[place.relationship]) {
    const r = sent.relationships[place.relationship];
    const index = store.relationships.findIndex(
      (s) => s.subject === r.subject && s.predicate === r.predicate && s.object === r.object,
    );
    if (index >= 0) view.setRelationshipError(index, place.message);
    showError(`Not saved: relationship ${r.predicate}: ${place.message}`);
  } else {
    showError(`Not saved: ${error.message}`);
  }
}

async function submit() {
  if (finished || saving) return;
  link.close();
  if (store.dirty && !(await save())) return;
  ui.submit.disabled = true;
  try {
    await api("POST", data.urls.submit);
    lease.end("Submitted: the image is no longer yours.");
    finish("Submitted for review.");
  } catch (error) {
    showError(`Not submitted: ${error.message}`);
    ui.submit.disabled = false;
  }
}

async function release() {
  if (finished) return;
  if (store.dirty && !window.confirm("Give the image back without saving? Your unsaved changes will be lost.")) return;
  try {
    await api("DELETE", data.urls.lease);
    finished = true;
    window.location.assign(data.urls.collection);
  } catch (error) {
    showError(`Not released: ${error.message}`);
  }
}

function finish(message) {
  finished = true;
  setDrawMode(false);
  view.layer.editable = false;
  document.querySelectorAll("[data-role=toolbar] button").forEach((b) => (b.disabled = true));
  ui.done.querySelector("[data-role=done-message]").textContent = message;
  ui.done.hidden = false;
  ui.done.querySelector("button")?.focus();
}

// --- wiring ---

ui.draw.addEventListener("click", () => setDrawMode(!view.layer.drawMode));
ui.undo.addEventListener("click", () => store.undo());
ui.save.addEventListener("click", () => save());
ui.submit.addEventListener("click", () => submit());
ui.release.addEventListener("click", () => release());
window.addEventListener("beforeunload", (e) => {
  if (store.dirty && !finished) e.preventDefault();
});

const editing = (run) => (e) => (finished ? false : run(e));
installShortcuts([
  { keys: ["d"], run: editing(() => setDrawMode(!view.layer.drawMode)) },
  { keys: ["n", "]"], run: () => view.step(1) },
  { keys: ["p", "["], run: () => view.step(-1) },
  { keys: ["Delete", "Backspace"], run: editing(remove) },
  { keys: ["1", "2", "3", "4", "5", "6", "7", "8", "9"], run: editing((e) => typeByNumber(Number(e.key))) },
  { keys: ["u"], run: editing(toggleUnknown) },
  { keys: ["l"], run: editing(() => link.open(view.selected)) },
  { keys: ["ArrowLeft"], arrows: true, run: editing((e) => nudge(e.shiftKey ? -10 : -1, 0)) },
  { keys: ["ArrowRight"], arrows: true, run: editing((e) => nudge(e.shiftKey ? 10 : 1, 0)) },
  { keys: ["ArrowUp"], arrows: true, run: editing((e) => nudge(0, e.shiftKey ? -10 : -1)) },
  { keys: ["ArrowDown"], arrows: true, run: editing((e) => nudge(0, e.shiftKey ? 10 : 1)) },
  { keys: ["s"], run: () => save() },
  { keys: ["s"], ctrl: true, always: true, run: () => save() },
  { keys: ["Enter"], ctrl: true, always: true, run: () => submit() },
  { keys: ["z"], run: editing(() => store.undo()) },
  { keys: ["z"], ctrl: true, run: editing(() => store.undo()) },
  { keys: ["Escape"], always: true, run: escape },
]);

started = true;
showState();
document.body.dataset.ready = "true"; // for the browser tests and the benchmark
performance.mark("vtt:ready");
