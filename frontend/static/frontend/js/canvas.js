// The image and its boxes as one SVG whose viewBox is the part of the image shown, in image pixels
// (zoom.js moves it): the browser scales it to the window, and every coordinate read or written here
// is in image pixels, as the API stores it, whatever the zoom.
//
// Why it stays responsive with hundreds of boxes:
// - one <rect> per box, created once and then only its attributes change;
// - one pointerdown listener on the <svg> (event delegation), with the pointer captured for the drag;
// - during a drag only the dragged <rect> (and the selection's handles) are written, and nothing is
//   read from the layout: the screen-to-image matrix is taken once, when the pointer goes down (and
//   again if the view zooms or pans during the drag);
// - the store is told once, when the pointer comes up (one undo step, one event).

import { area, clamp, contains, dragged, round } from "./geometry.js";
import { NAME_PX, placeLabels } from "./labels.js";
import { SelectionOverlay } from "./selection.js";
import { make, readRect, setRect } from "./svg.js";

const MIN_DRAW_PX = 4; // on screen: a smaller drag is a click, not a box
const PIXELS_FROM_SCALE = 4; // screen px per image px from which the picture shows its pixels sharp

// The width of a name on screen, measured once per text on a canvas (no layout read), plus its halo.
const measurer = document.createElement("canvas").getContext("2d");
measurer.font = `italic ${NAME_PX}px system-ui, sans-serif`;
const widths = new Map();
export function nameWidth(text) {
  if (!widths.has(text)) widths.set(text, Math.ceil(measurer.measureText(text).width) + 4);
  return widths.get(text);
}

export class BoxLayer {
  // callbacks: select(key|null), draw(bbox), commit(key, bbox), pick(keys: the boxes under a click, smallest
  // first); typeClass(type) -> CSS class.
  constructor(svg, { width, height, fileUrl, editable, callbacks, typeClass }) {
    this.svg = svg;
    this.width = width;
    this.height = height;
    this.editable = editable;
    this.cb = callbacks;
    this.typeClass = typeClass;
    this.elements = new Map(); // key -> <rect>
    this.areas = new Map(); // key -> area, to keep small boxes above large ones
    this.selected = null;
    this.drag = null;
    this.idleWaiters = [];
    this.drawMode = false;
    this.pickMode = false;
    this.scale = 1;
    this._build(fileUrl);
    svg.addEventListener("pointerdown", (e) => this._down(e));
    svg.addEventListener("pointermove", (e) => this._move(e));
    svg.addEventListener("pointerup", (e) => this._up(e));
    svg.addEventListener("pointercancel", () => this.cancel());
    // A finger on the image draws, moves or pinches, and never scrolls the page: touch-action: none
    // (site.css) says so to a browser that reads it on an SVG, and this to one that does not.
    svg.addEventListener("touchmove", (e) => e.cancelable && e.preventDefault(), { passive: false });
  }

  _build(fileUrl) {
    this.svg.setAttribute("viewBox", `0 0 ${this.width} ${this.height}`);
    const size = { x: 0, y: 0, width: this.width, height: this.height };
    const background = fileUrl
      ? make("image", { ...size, href: fileUrl, class: "picture" })
      : make("rect", { ...size, class: "no-picture" });
    if (fileUrl) {
      background.addEventListener("load", () => {
        document.body.dataset.imageLoaded = "true";
        performance.mark("vtt:image-loaded");
      }, { once: true });
    }
    this.boxes = make("g", { class: "boxes" });
    // Every box's name and every relationship, drawn over the boxes and never in the pointer's way.
    this.decorations = make("g", { class: "decorations" });
    this.ghost = make("rect", { class: "ghost", visibility: "hidden" });
    this.overlay = new SelectionOverlay({ withHandles: this.editable });
    this.svg.replaceChildren(background, this.boxes, this.decorations, this.ghost, this.overlay.group);
  }

  // The names ("person 2") beside each box, and a line from subject to object with the relationship's
  // name at its middle, placed so that no name covers another or its own box (labels.js). Redrawn
  // whole when something is added, removed, retyped, moved or linked, and when the zoom changes (a
  // few hundred elements at most); a drag in progress moves only its box. Returns how many names found
  // no place at this zoom.
  renderDecorations(objects, labels, relationships) {
    const s = this.scale;
    const centre = ([x, y, w, h]) => [x + w / 2, y + h / 2];
    const links = relationships
      .filter((r) => objects.has(r.subject) && objects.has(r.object))
      .map((r) => ({ r, from: centre(objects.get(r.subject).bbox), to: centre(objects.get(r.object).bbox) }));
    const keys = [...objects.keys()];
    if (this.selected && objects.has(this.selected)) keys.sort((a, b) => (b === this.selected) - (a === this.selected));
    const placed = placeLabels(
      keys.map((key) => ({ key, bbox: objects.get(key).bbox, width: nameWidth(labels.get(key) || "") })),
      links.map(({ r, from, to }) => ({ at: [(from[0] + to[0]) / 2, (from[1] + to[1]) / 2], width: nameWidth(r.predicate) })),
      { scale: s, width: this.width, height: this.height, selected: this.selected },
    );
    const fragment = document.createDocumentFragment();
    links.forEach(({ r, from: [x1, y1], to: [x2, y2] }, i) => {
      fragment.append(make("line", { class: "link-line", x1, y1, x2, y2, "data-predicate": r.predicate }));
      const at = placed.links[i];
      const text = make("text", { class: `link-label${at ? "" : " crowded"}`, x: at?.[0] ?? 0, y: at?.[1] ?? 0, "text-anchor": "middle" });
      text.textContent = r.predicate;
      fragment.append(text);
    });
    let crowded = 0;
    for (const key of objects.keys()) {
      const at = placed.names.get(key);
      if (!at && key !== this.selected) crowded += 1;
      const classes = ["box-label", key === this.selected ? "selected" : "", at ? "" : "crowded"].filter(Boolean);
      const text = make("text", { class: classes.join(" "), x: at?.[0] ?? 0, y: at?.[1] ?? 0, "data-key": key });
      text.textContent = labels.get(key) || "";
      fragment.append(text);
    }
    this.decorations.replaceChildren(fragment);
    this.decorations.setAttribute("font-size", NAME_PX / s);
    return crowded;
  }

  setLabelsShown(on) {
    this.svg.classList.toggle("no-labels", !on);
  }

  // --- what the page tells the layer ---

  // Everything at once (page load, undo, after a save): one fragment, one insertion.
  renderAll(objects) {
    this._abandon(); // an undo during a drag: the dragged element is about to be replaced
    this.elements.clear();
    this.areas.clear();
    const sorted = [...objects].sort((a, b) => area(b.bbox) - area(a.bbox));
    const fragment = document.createDocumentFragment();
    for (const o of sorted) fragment.append(this._element(o));
    this.boxes.replaceChildren(fragment);
    if (this.selected && !this.elements.has(this.selected)) this.selected = null;
    this._placeSelection();
  }

  add(o) {
    this._insertByArea(o.key, this._element(o));
  }

  remove(key) {
    if (this.drag?.key === key) this._abandon();
    this.elements.get(key)?.remove();
    this.elements.delete(key);
    this.areas.delete(key);
    if (this.selected === key) this.select(null);
  }

  setBox(key, bbox) {
    const element = this.elements.get(key);
    if (!element) return;
    setRect(element, bbox);
    if (area(bbox) !== this.areas.get(key)) this._insertByArea(key, element);
    if (key === this.selected) this._placeSelection();
  }

  setType(key, type) {
    this.elements.get(key)?.setAttribute("class", this._classes(key, type));
  }

  setInvalid(keys) {
    for (const [key, element] of this.elements) element.classList.toggle("invalid", keys.has(key));
  }

  select(key, label = "") {
    this.elements.get(this.selected)?.classList.remove("selected");
    this.selected = key && this.elements.has(key) ? key : null;
    this.elements.get(this.selected)?.classList.add("selected");
    // The selection overlay writes the selected box's name: its plain label would be written twice.
    for (const text of this.decorations.querySelectorAll("text.box-label")) {
      text.classList.toggle("selected", text.dataset.key === this.selected);
    }
    this.overlay.setLabel(label);
    this._placeSelection();
  }

  setDrawMode(on) {
    this.drawMode = on;
    this.svg.classList.toggle("drawing", on);
  }

  setPickMode(on) {
    this.pickMode = on;
    this.svg.classList.toggle("picking", on);
  }

  // The zoom changed (zoom.js): what keeps one size on screen is resized, and a drag under way takes
  // the new screen-to-image matrix (a wheel turned mid-drag).
  setScale(scale) {
    this.scale = scale;
    this.overlay.setScale(scale);
    this.decorations.setAttribute("font-size", NAME_PX / scale);
    this.svg.classList.toggle("pixels", scale >= PIXELS_FROM_SCALE);
    if (this.drag) this.drag.inverse = this.svg.getScreenCTM().inverse();
    this._placeSelection();
  }

  // Escape during a drag puts the box back where it was.
  cancel() {
    if (!this.drag) return false;
    if (this.drag.kind !== "draw") this._show(this.drag.key, this.drag.original);
    this._abandon();
    return true;
  }

  // --- elements ---

  _classes(key, type) {
    return `box ${this.typeClass(type)}${key === this.selected ? " selected" : ""}`;
  }

  _element(o) {
    const element = make("rect", { class: this._classes(o.key, o.type), "data-key": o.key });
    // A box accepted from a model's suggestion (decision 0078) keeps a mark of it.
    if (o.fromModel) element.dataset.fromModel = o.fromModel.model_version || "a model";
    setRect(element, o.bbox);
    this.elements.set(o.key, element);
    this.areas.set(o.key, area(o.bbox));
    return element;
  }

  // Boxes are painted largest first, so a small box inside a large one can still be clicked.
  _insertByArea(key, element) {
    const size = area(readRect(element));
    this.areas.set(key, size);
    let before = null;
    for (const sibling of this.boxes.children) {
      if (sibling !== element && this.areas.get(sibling.dataset.key) < size) {
        before = sibling;
        break;
      }
    }
    this.boxes.insertBefore(element, before);
  }

  _placeSelection() {
    const element = this.elements.get(this.selected);
    if (element) this.overlay.place(readRect(element));
    else this.overlay.hide();
  }

  _show(key, bbox) {
    const element = this.elements.get(key);
    if (!element) return;
    setRect(element, bbox);
    if (key === this.selected) this.overlay.place(bbox);
  }

  // --- the pointer ---

  _point(e) {
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(this.drag.inverse);
    return [clamp(p.x, 0, this.width), clamp(p.y, 0, this.height)];
  }

  // Every box under the pointer, smallest first: where boxes overlap (a rider on a bicycle) the box on
  // top is not always the one meant, and may be the one the click must skip. Reads the boxes on a
  // click only, never during a drag.
  _boxesAt(e) {
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(this.svg.getScreenCTM().inverse());
    return [...this.elements]
      .map(([key, element]) => ({ key, bbox: readRect(element) }))
      .filter(({ bbox }) => contains(bbox, [p.x, p.y]))
      .sort((a, b) => area(a.bbox) - area(b.bbox))
      .map(({ key }) => key);
  }

  _down(e) {
    if (e.button !== 0 || this.drag) return;
    const key = e.target.dataset?.key || null;
    const handle = e.target.dataset?.handle || null;
    if (this.pickMode) {
      e.preventDefault();
      this.cb.pick(this._boxesAt(e));
      return;
    }
    if (!this.editable) {
      this.cb.select(key);
      return;
    }
    e.preventDefault();
    this.drag = { inverse: this.svg.getScreenCTM().inverse(), pointer: e.pointerId, moved: false };
    this.drag.start = this._point(e);
    if (handle && this.selected && !this.drawMode) {
      Object.assign(this.drag, { kind: "resize", key: this.selected, handle, original: readRect(this.elements.get(this.selected)) });
    } else if (key && !this.drawMode) {
      this.cb.select(key);
      Object.assign(this.drag, { kind: "move", key, original: readRect(this.elements.get(key)) });
    } else {
      Object.assign(this.drag, { kind: "draw", key: null, original: null });
    }
    this.svg.setPointerCapture(e.pointerId);
  }

  _move(e) {
    const drag = this.drag;
    if (!drag || e.pointerId !== drag.pointer) return;
    drag.current = dragged(drag, this._point(e), this.width, this.height);
    drag.moved = true;
    if (drag.kind === "draw") {
      setRect(this.ghost, drag.current);
      this.ghost.setAttribute("visibility", "visible");
    } else {
      this._show(drag.key, drag.current);
    }
  }

  _up(e) {
    const drag = this.drag;
    if (!drag || e.pointerId !== drag.pointer) return;
    this._abandon();
    if (drag.kind === "draw") {
      const bbox = drag.current && round(drag.current);
      const minimum = Math.max(1, MIN_DRAW_PX / this.scale);
      if (bbox && bbox[2] >= minimum && bbox[3] >= minimum) this.cb.draw(bbox);
      else this.cb.select(null); // a click on empty space
      return;
    }
    if (!drag.moved) return; // a click on a box: it is selected already
    const bbox = round(drag.current);
    if (bbox[2] < 1 || bbox[3] < 1) {
      this._show(drag.key, drag.original); // resized to nothing: keep the box as it was
      return;
    }
    this._show(drag.key, bbox);
    this.cb.commit(drag.key, bbox);
  }

  // End a drag without putting anything back (done, or its box is gone or about to be redrawn).
  _abandon() {
    if (!this.drag) return;
    this.ghost.setAttribute("visibility", "hidden");
    if (this.svg.hasPointerCapture(this.drag.pointer)) this.svg.releasePointerCapture(this.drag.pointer);
    this.drag = null;
    // After the caller's commit (a promise's callbacks run once this event's handlers are done).
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  // Resolved once no drag is under way. A save's answer waits for it (edit_session.js): applying the
  // answer redraws every box, which would drop a drag begun while the save was on its way (accepting a
  // suggestion saves at once, and the person goes straight on to fix its box).
  idle() {
    return this.drag ? new Promise((resolve) => this.idleWaiters.push(resolve)) : Promise.resolve();
  }
}
