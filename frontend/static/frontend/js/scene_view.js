// What the annotator's and the reviewer's pages share: the store, the boxes on the image, the form of
// the selected box, the lists, the selection, and the server's complaints pinned to what they name.
// It routes each store event to the views it concerns and nothing else, and the zoom's changes to the
// layer (what keeps one size on screen) and to the zoom's own buttons.

import { BoxLayer } from "./canvas.js";
import { ObjectEditor } from "./editor.js";
import { ObjectList, RelationshipList } from "./lists.js";
import { AnnotationStore } from "./store.js";
import { Vocabulary } from "./vocabulary.js";
import { Viewport } from "./zoom.js";

// "v3, edited": a box accepted from a model's suggestion, as the review shows it.
export function modelMark(fromModel) {
  return `${fromModel.model_version || "model"}${fromModel.edited ? ", edited" : ""}`;
}

export function readPageData() {
  return JSON.parse(document.getElementById("page-data").textContent);
}

export class SceneView {
  // hooks: draw(bbox), commit(key, bbox), pick(keys), editorActions, removeRelationship(index), changed(kind, key)
  constructor(data, { editable, hooks = {} }) {
    this.data = data;
    this.hooks = hooks;
    this.vocabulary = new Vocabulary(data.vocabulary);
    this.store = new AnnotationStore(data.annotation, this.vocabulary);
    this.selected = null;
    this.labels = this.store.labels();
    this.objectErrors = new Map(); // key -> {slot, message, gap}: gap, attributes a submit found missing
    this.relationshipErrors = new Map(); // index -> message
    const root = document.querySelector("[data-role=workspace]");
    const typeClasses = new Map(this.vocabulary.types.map((t, i) => [t, `t${i % 8}`]));
    this.layer = new BoxLayer(root.querySelector("svg[data-role=canvas]"), {
      width: data.image.width,
      height: data.image.height,
      fileUrl: data.image.file_url,
      editable,
      typeClass: (type) => typeClasses.get(type) || "t-unknown",
      callbacks: {
        select: (key) => this.select(key),
        draw: (bbox) => hooks.draw?.(bbox),
        commit: (key, bbox) => hooks.commit?.(key, bbox),
        pick: (keys) => hooks.pick?.(keys),
      },
    });
    this.viewport = new Viewport(this.layer.svg, {
      width: data.image.width,
      height: data.image.height,
      dragPans: !editable,
      onChange: (viewport) => this._zoomed(viewport),
      onGesture: () => this.layer.cancel(),
    });
    this.zoomTools = this._zoomTools(root);
    this._showZoom(this.viewport);
    this.editor = new ObjectEditor(root.querySelector("[data-role=editor]"), {
      store: this.store,
      vocabulary: this.vocabulary,
      readOnly: !editable,
      actions: hooks.editorActions || {},
    });
    this.objects = new ObjectList(root, { store: this.store, onSelect: (key) => this.select(key) });
    this.relations = new RelationshipList(root, {
      store: this.store,
      vocabulary: this.vocabulary,
      onRemove: editable ? (index) => hooks.removeRelationship?.(index) : null,
      onSelect: (key) => this.select(key),
    });
    this.store.addEventListener("change", (e) => this._changed(e.detail));
    this.labelsShown = true;
    this.labelsButton = root.querySelector("[data-action=labels]");
    this.labelsButton?.addEventListener("click", () => this.toggleLabels());
    this._changed({ kind: "reset", key: null });
    this._pinComment(root, data.image.review_comment_object);
  }

  // A review comment about one box ("o2": the server's ids follow the boxes' order): name the box
  // beside the comment, mark it on the image and select it, so the annotator sees what it is about.
  _pinComment(root, objectId) {
    const key = objectId ? this.store.order[Number(objectId.slice(1)) - 1] : null;
    if (!key) return;
    const about = root.querySelector("[data-role=comment-about]");
    if (about) about.textContent = `, about ${this.labels.get(key)}`;
    this.layer.elements.get(key)?.classList.add("pinned");
    this.select(key);
  }

  // T, or the button on the image: every box's name and the relationships' lines, on or off.
  toggleLabels() {
    this.labelsShown = !this.labelsShown;
    this.layer.setLabelsShown(this.labelsShown);
    this.labelsButton?.setAttribute("aria-pressed", String(this.labelsShown));
  }

  // --- zoom and pan (zoom.js) ---

  // The buttons over the image (-, the level, +, Fit) and the line saying how many names are hidden.
  _zoomTools(root) {
    const tools = root.querySelector("[data-role=zoom]");
    const actions = { "zoom-in": () => this.viewport.zoomIn(), "zoom-out": () => this.viewport.zoomOut(), "zoom-fit": () => this.viewport.fit() };
    tools?.addEventListener("click", (e) => actions[e.target.closest("[data-action]")?.dataset.action]?.());
    return { level: tools?.querySelector("[data-role=zoom-level]"), crowded: root.querySelector("[data-role=crowded]") };
  }

  // Every change of the view: the layer's sizes now (a drag may be under way), the names' places once
  // per frame (a wheel sends many events in one).
  _zoomed(viewport) {
    this.layer.setScale(viewport.scale);
    if (!this.zoomTools) return; // the first view, before the store is read: rendered by the constructor
    this._showZoom(viewport);
    if (this._decorateFrame) return;
    this._decorateFrame = requestAnimationFrame(() => {
      this._decorateFrame = null;
      this._decorate();
    });
  }

  _showZoom(viewport) {
    const level = this.zoomTools?.level;
    if (!level) return;
    const zoom = viewport.zoom;
    level.textContent = `${zoom < 10 ? Math.round(zoom * 10) / 10 : Math.round(zoom)}×`;
    level.title = `1 image pixel = ${viewport.scale.toFixed(1)} screen pixels`;
  }

  // The keys of both pages: + and - about the centre, 0 to fit, Space held to pan with the mouse.
  // The arrows pan too, when no box is selected: the editing pages bind them (with a selected box they
  // move the box).
  zoomShortcuts() {
    const viewport = this.viewport;
    const CONTROLS = "button, a, summary, select, input, label";
    return [
      { keys: ["+", "="], run: () => viewport.zoomIn() },
      { keys: ["-", "_"], run: () => viewport.zoomOut() },
      { keys: ["0"], run: () => viewport.fit() },
      // On a focused button or box, Space is that control's: it presses it.
      { keys: [" "], run: (e) => (e.target instanceof Element && e.target.closest(CONTROLS) ? false : viewport.holdSpace(true)) },
    ];
  }

  // An arrow key's pan: a tenth of the view, half of it with Shift.
  panByKey(e, dx, dy) {
    const [w, h] = this.viewport.size;
    const share = e.shiftKey ? 0.5 : 0.1;
    this.viewport.panBy(-dx * w * share, -dy * h * share);
  }

  arrowShortcuts(run) {
    const arrow = (dx, dy) => (e) => run(e, dx, dy);
    return [
      { keys: ["ArrowLeft"], arrows: true, run: arrow(-1, 0) },
      { keys: ["ArrowRight"], arrows: true, run: arrow(1, 0) },
      { keys: ["ArrowUp"], arrows: true, run: arrow(0, -1) },
      { keys: ["ArrowDown"], arrows: true, run: arrow(0, 1) },
    ];
  }

  // Nothing edits any more (the image was submitted or decided): the side panel says so.
  setReadOnly(note) {
    this.viewport.dragPans = true; // a drag no longer draws: it pans
    this.layer.editable = false;
    this.layer.svg.classList.add("read-only");
    this.editor.setReadOnly(note);
    this.relations.onRemove = null;
    this.relations.render(this.labels, this.relationshipErrors);
    this.select(this.selected);
  }

  _decorate() {
    const objects = new Map(this.store.order.map((k) => [k, this.store.get(k)]));
    const crowded = this.layer.renderDecorations(objects, this._imageLabels(objects), this.store.relationships);
    this.hooks.decorated?.(this.layer.scale); // what else the page draws at the names' size (suggestions)
    const line = this.zoomTools?.crowded;
    if (!line) return;
    line.hidden = !crowded;
    line.textContent = crowded === 1 ? "1 name hidden: zoom in to see it" : `${crowded} names hidden: zoom in to see them`;
  }

  // The names on the image. Beyond the annotator's page, a box accepted from a model's suggestion says
  // which model version proposed it and whether it was edited ("person 2 · v3, edited"; decision 0078).
  _imageLabels(objects) {
    if (this.data.mode === "annotate") return this.labels;
    const labels = new Map(this.labels);
    for (const [key, o] of objects) {
      if (o.fromModel) labels.set(key, `${this.labels.get(key)} · ${modelMark(o.fromModel)}`);
    }
    return labels;
  }

  select(key) {
    const before = this.selected;
    this.selected = key && this.store.get(key) ? key : null;
    const label = this.labels.get(this.selected) || "";
    this.layer.select(this.selected, label);
    this.editor.show(this.selected, label);
    this.objects.select(this.selected);
    const error = this.objectErrors.get(this.selected);
    if (error) this.editor.showError(error.slot, error.message);
    else this.editor.clearErrors();
    if (this.selected !== before && this.zoomTools) this._decorate(); // the selected name is placed first
  }

  // N / P: walk the boxes in their order, wrapping around.
  step(delta) {
    const order = this.store.order;
    if (!order.length) return;
    const at = order.indexOf(this.selected);
    const next = at < 0 ? (delta > 0 ? 0 : order.length - 1) : (at + delta + order.length) % order.length;
    this.select(order[next]);
  }

  // --- the server's complaints ---

  setObjectError(key, slot, message, { select = true, gap = false } = {}) {
    this.objectErrors.set(key, { slot, message, gap });
    this._markInvalid();
    if (select) this.select(key);
  }

  setRelationshipError(index, message) {
    this.relationshipErrors.set(index, message);
    this.relations.render(this.labels, this.relationshipErrors);
  }

  clearErrors() {
    this.objectErrors.clear();
    this.relationshipErrors.clear();
    this._markInvalid();
    this.editor.clearErrors();
    this.relations.render(this.labels, this.relationshipErrors);
  }

  _markInvalid() {
    const keys = new Set(this.objectErrors.keys());
    this.layer.setInvalid(keys);
    this.objects.setInvalid(keys);
  }

  // --- routing the store's events ---

  _changed({ kind, key }) {
    if (kind === "history") return this.hooks.changed?.(kind, key); // a step of the page's: no box changed
    const o = key ? this.store.get(key) : null;
    if (key && this.objectErrors.delete(key)) {
      this._markInvalid(); // the box was edited: its complaint no longer applies
      if (key === this.selected) this.editor.clearErrors();
    }
    switch (kind) {
      case "box":
        this.layer.setBox(key, o.bbox);
        if (key === this.selected) this.editor.refresh();
        break;
      case "attributes":
        this.objects.update(key);
        if (key === this.selected) this.editor.refresh();
        break;
      case "relationships":
        this.relationshipErrors.clear();
        this.relations.render(this.labels, this.relationshipErrors);
        break;
      case "add":
        this.labels = this.store.labels();
        this.layer.add(o);
        this.objects.render(this.labels);
        break;
      case "type":
        this.labels = this.store.labels();
        this.layer.setType(key, o.type);
        this._relist();
        if (key === this.selected) this.select(key);
        break;
      case "remove":
        this.labels = this.store.labels();
        this.layer.remove(key);
        this._relist();
        if (key === this.selected) this.select(null);
        break;
      default: // reset: load, undo, after a save
        this.labels = this.store.labels();
        this.layer.renderAll(this.store.order.map((k) => this.store.get(k)));
        this.objectErrors = new Map([...this.objectErrors].filter(([k]) => this.store.get(k)));
        this._relist();
        this._markInvalid();
        this.select(this.store.get(this.selected) ? this.selected : null);
    }
    if (kind !== "attributes") this._decorate();
    this.hooks.changed?.(kind, key);
  }

  _relist() {
    this.relationshipErrors.clear();
    this.objects.render(this.labels);
    this.relations.render(this.labels, this.relationshipErrors);
  }
}
