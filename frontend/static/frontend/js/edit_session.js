// Editing an annotation in the browser, shared by the annotator's page and the reviewer's (a reviewer
// may correct small mistakes before accepting; the server records the correction as the reviewer's):
// draw, move, resize and delete boxes, type them, tick attributes, link them, undo, and save (PUT of
// the whole annotation). Nothing the user did is thrown away when the server refuses a save: the store
// is only replaced by the server's answer on success, and the server's message is shown beside the
// box, field or relationship it names.

import { api } from "./api.js";
import { locate, locateAll } from "./errors.js";
import { LinkForm } from "./link.js";
import { SceneView } from "./scene_view.js";

const $ = (selector) => document.querySelector(selector);

export class EditSession {
  // onSaved(record): after each accepted save (the annotator's page renews its lease clock).
  // onDecorated(scale): after the names on the image were placed again (the page's own overlays follow).
  // onUndone(step): undo reached a step the page recorded in the store's history (store.remember).
  constructor(data, { onSaved = () => {} } = {}) {
    this.data = data;
    this.onSaved = onSaved;
    this.onDecorated = () => {};
    this.onUndone = () => {};
    this.ui = {
      draw: $("[data-action=draw]"),
      newType: $("[data-role=new-type]"),
      undo: $("[data-action=undo]"),
      save: $("[data-action=save]"),
      state: $("[data-role=save-state]"),
      error: $("[data-role=error]"),
      notice: $("[data-role=notice]"),
      gaps: $("[data-role=gaps]"),
    };
    this.saving = null; // the save in flight, so a second Ctrl+S waits for it instead of racing it
    this.finished = false; // submitted, decided or released: the page no longer edits
    let started = false; // the view announces its first render before the constructor has finished
    const view = new SceneView(data, {
      editable: true,
      hooks: {
        draw: (bbox) => view.select(view.store.add({ type: this.ui.newType.value, bbox })),
        commit: (key, bbox) => view.store.setBox(key, bbox),
        pick: (keys) => this.link.pick(keys),
        removeRelationship: (index) => view.store.removeRelationship(index),
        changed: () => started && this.showState(),
        decorated: (scale) => this.onDecorated(scale),
        editorActions: {
          setType: (key, type) => this.setType(key, type),
          setBox: (key, bbox) => view.store.setBox(key, bbox),
          setAttributes: (key, values, told) => view.store.setAttributes(key, values, told),
          setUnknown: (key, on) => view.store.setUnknown(key, on),
          remove: (key) => view.store.remove(key),
          link: (key) => this.link.open(key),
        },
      },
    });
    this.view = view;
    this.store = view.store;
    this.link = new LinkForm($("[data-role=link]"), {
      store: this.store,
      vocabulary: view.vocabulary,
      onPickMode: (on) => view.layer.setPickMode(on),
      onMessage: (text) => this.notify(text),
    });
    this.store.addEventListener("change", (e) => {
      if (e.detail.kind !== "box" && e.detail.kind !== "attributes") this.link.refresh();
    });
    this.ui.newType.replaceChildren(...view.vocabulary.types.map((t) => new Option(t, t)));
    this.ui.draw.addEventListener("click", () => this.setDrawMode(!view.layer.drawMode));
    this.ui.undo.addEventListener("click", () => this.undo());
    this.ui.save.addEventListener("click", () => this.save());
    this.ui.gaps?.addEventListener("click", (e) => {
      const key = e.target.closest("[data-key]")?.dataset.key;
      if (key) view.select(key);
    });
    window.addEventListener("beforeunload", (e) => {
      if (this.store.dirty && !this.finished) e.preventDefault();
    });
    started = true;
    this.showState();
  }

  // --- editing ---

  setType(key, type) {
    const dropped = this.store.setType(key, type);
    this.ui.newType.value = type; // the next box drawn is probably of the same type
    if (dropped) this.notify(`Removed ${dropped} relationship${dropped > 1 ? "s" : ""} the vocabulary does not allow for a ${type}; undo (Ctrl+Z) brings ${dropped > 1 ? "them" : "it"} back.`);
  }

  // Keys 1..9: the type of the selected box, or of the next box drawn when none is selected.
  typeByNumber(n) {
    const type = this.view.vocabulary.types[n - 1];
    if (!type) return;
    if (this.view.selected) this.setType(this.view.selected, type);
    else this.ui.newType.value = type;
  }

  setDrawMode(on) {
    this.view.layer.setDrawMode(on);
    this.ui.draw.setAttribute("aria-pressed", String(on));
  }

  // An arrow key: moves the selected box 1 px (10 with Shift); with no box selected, or once nothing
  // edits, it pans the view.
  nudgeOrPan(e, dx, dy) {
    if (this.finished || !this.view.selected) return this.view.panByKey(e, dx, dy);
    const step = e.shiftKey ? 10 : 1;
    this.nudge(dx * step, dy * step);
  }

  nudge(dx, dy) {
    const o = this.store.get(this.view.selected);
    if (!o) return;
    const [x, y, w, h] = o.bbox;
    const nx = Math.min(Math.max(x + dx, 0), this.data.image.width - w);
    const ny = Math.min(Math.max(y + dy, 0), this.data.image.height - h);
    this.store.setBox(o.key, [nx, ny, w, h]);
  }

  toggleUnknown() {
    const key = this.view.selected;
    if (key) this.store.setUnknown(key, !this.store.allUnknown(key));
  }

  undo() {
    const step = this.store.undo();
    if (step) this.onUndone(step);
  }

  escape() {
    if (this.view.layer.cancel() || this.link.close()) return;
    if (this.view.layer.drawMode) return this.setDrawMode(false);
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
    this.view.select(null);
  }

  // The editing keys of both pages; `extra` are the page's own (submit, accept, ...).
  shortcuts(extra = []) {
    const editing = (run) => (e) => (this.finished ? false : run(e));
    const view = this.view;
    return [
      { keys: ["d"], run: editing(() => this.setDrawMode(!view.layer.drawMode)) },
      { keys: ["n", "]"], run: () => view.step(1) },
      { keys: ["p", "["], run: () => view.step(-1) },
      { keys: ["Delete", "Backspace"], run: editing(() => view.selected && this.store.remove(view.selected)) },
      { keys: ["1", "2", "3", "4", "5", "6", "7", "8", "9"], run: editing((e) => this.typeByNumber(Number(e.key))) },
      { keys: ["u"], run: editing(() => this.toggleUnknown()) },
      { keys: ["l"], run: editing(() => this.link.open(view.selected)) },
      ...view.arrowShortcuts((e, dx, dy) => this.nudgeOrPan(e, dx, dy)),
      { keys: ["s"], run: () => this.save() },
      { keys: ["s"], ctrl: true, always: true, run: () => this.save() },
      { keys: ["z"], run: editing(() => this.undo()) },
      { keys: ["z"], ctrl: true, run: editing(() => this.undo()) },
      { keys: ["t"], run: () => view.toggleLabels() },
      ...view.zoomShortcuts(),
      ...extra,
      { keys: ["Escape"], always: true, run: () => this.escape() },
    ];
  }

  // --- the server ---

  showState(text) {
    this.ui.undo.disabled = !this.store.canUndo || this.finished;
    if (text) this.ui.state.textContent = text;
    else if (!this.saving) this.ui.state.textContent = this.store.dirty ? "Unsaved changes" : "All changes saved";
    this.ui.state.classList.toggle("dirty", this.store.dirty);
    this.renderGaps();
  }

  notify(text) {
    this.ui.notice.textContent = text;
    this.ui.notice.hidden = !text;
  }

  showError(text) {
    this.ui.error.textContent = text;
    this.ui.error.hidden = !text;
  }

  async save() {
    if (this.finished) return false;
    if (this.saving) return this.saving;
    this.saving = (async () => {
      const documentSent = this.store.toDocument();
      const keys = [...this.store.order];
      const revision = this.store.revision;
      this.ui.save.disabled = true;
      this.showState("Saving…");
      try {
        const record = await api("PUT", this.data.urls.annotation, documentSent);
        await this.view.layer.idle(); // a drag under way ends first; its change then keeps the page unsaved
        this.store.saved(record, revision, keys);
        this.view.clearErrors();
        this.showError("");
        this.onSaved(record);
        return true;
      } catch (error) {
        this.refused(error, documentSent, keys);
        return false;
      } finally {
        this.saving = null;
        this.ui.save.disabled = false;
        this.showState();
      }
    })();
    return this.saving;
  }

  // Pin the complaint to what it names; the edits stay as they are, unsaved.
  refused(error, sent, keys) {
    const place = locate(error);
    const view = this.view;
    if (place.object !== undefined && keys[place.object] && this.store.get(keys[place.object])) {
      const key = keys[place.object];
      view.setObjectError(key, place.slot, place.message);
      this.showError(`Not saved: ${view.labels.get(key)}: ${place.message}`);
    } else if (place.relationship !== undefined && sent.relationships[place.relationship]) {
      const r = sent.relationships[place.relationship];
      const index = this.store.relationships.findIndex(
        (s) => s.subject === r.subject && s.predicate === r.predicate && s.object === r.object,
      );
      if (index >= 0) view.setRelationshipError(index, place.message);
      this.showError(`Not saved: relationship ${r.predicate}: ${place.message}`);
    } else {
      this.showError(`Not saved: ${error.message}`);
    }
  }

  // A refusal that names several boxes (a submit with boxes lacking attributes): every one of them is
  // marked on the image and listed in the side panel, where the list does not push the image down;
  // a box leaves the list once it is edited.
  showGaps(error) {
    const keys = [...this.store.order]; // saved just before: the server's indexes are these
    const places = locateAll(error).filter((p) => p.object !== undefined && this.store.get(keys[p.object]));
    if (!places.length) return false;
    for (const place of places) {
      this.view.setObjectError(keys[place.object], place.slot, place.message, { select: false, gap: true });
    }
    this.view.select(keys[places[0].object]);
    this.renderGaps();
    return true;
  }

  renderGaps() {
    const gaps = this.ui.gaps;
    if (!gaps) return;
    // Only a submit's missing attributes: a box a save refused says why on the box and in the error line.
    const open = this.store.order.filter((key) => this.view.objectErrors.get(key)?.gap);
    gaps.hidden = !open.length;
    if (!open.length) return;
    gaps.querySelector("[data-role=gaps-count]").textContent =
      open.length === 1 ? "1 box needs attributes" : `${open.length} boxes need attributes`;
    gaps.querySelector("ul").replaceChildren(
      ...open.map((key) => {
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = "link";
        button.dataset.key = key;
        button.textContent = `${this.view.labels.get(key)}: ${this.view.objectErrors.get(key).message}`;
        item.append(button);
        return item;
      }),
    );
  }

  // Submitted, decided or released: nothing on the page edits any more, and the side panel says so.
  finish(note) {
    this.finished = true;
    this.link.close();
    this.setDrawMode(false);
    this.view.setReadOnly(note);
    this.renderGaps();
  }
}
