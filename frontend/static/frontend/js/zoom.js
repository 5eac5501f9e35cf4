// Zoom and pan of the image, shared by the annotator's and the reviewer's pages (decision 0074).
//
// The zoom is the SVG's viewBox: the part of the image shown, in image pixels. Nothing else moves, so
// every coordinate the boxes are drawn with and stored in stays in image pixels, and the pointer is
// turned into image pixels by the SVG's own screen matrix (getScreenCTM), which includes the zoom.
//
// State: `zoom`, relative to the fitted image (1 = the whole image fits, as before any zoom), and the
// image point at the centre of the view. Once zoomed, the viewBox takes the element's shape, so the
// view fills the stage instead of keeping the image's letterbox.
//
// What moves it:
// - the wheel (or a trackpad's pinch, which the browser reports as a wheel): about the pointer;
// - two pointers (a pinch on a touch screen): about their midpoint, which also pans;
// - a drag with Space held, or with the middle button; a one-pointer drag where nothing is edited;
// - the page's keys (zoomIn, zoomOut, fit, panBy), bound by the page's shortcut list.
// A gesture that starts while a box is being drawn or dragged cancels that drag (`onGesture`).

import { clamp } from "./geometry.js";

export const MIN_ZOOM = 1;
export const MAX_ZOOM = 16;
// The steps of + and -: round numbers a person can name ("at 4×"); the wheel zooms continuously.
const STEPS = [1, 1.5, 2, 3, 4, 6, 8, 12, 16];
const WHEEL_RATE = 0.002; // zoom factor per wheel pixel: e^(0.002 * 100) ≈ 1.22 per notch
const LINE_PX = 16; // a wheel that counts lines (deltaMode 1)
const PAN_THRESHOLD_PX = 4; // a smaller one-pointer move is a click, not a pan

export class Viewport {
  // onChange(viewport): after every change of the view (the page redraws what keeps a screen size).
  // onGesture(): a pan or pinch begins; the page ends any drag of its own.
  // dragPans: a one-pointer drag pans (a page that edits nothing).
  constructor(svg, { width, height, onChange = () => {}, onGesture = () => {}, dragPans = false }) {
    this.svg = svg;
    this.width = width;
    this.height = height;
    this.onChange = onChange;
    this.onGesture = onGesture;
    this.dragPans = dragPans;
    this.zoom = 1;
    this.centre = [width / 2, height / 2];
    const rect = svg.getBoundingClientRect();
    this.size = [rect.width, rect.height];
    this.pointers = new Map(); // pointerId -> [clientX, clientY], the pointers down on the image
    this.gesture = null; // {kind: "pan" | "pinch", ...} while one is under way
    this.spaceHeld = false;
    this._listen();
    this._apply();
  }

  // Screen pixels per image pixel.
  get scale() {
    return this._fitScale() * this.zoom;
  }

  // --- what the page's keys and buttons call ---

  zoomIn() {
    this.zoomTo(STEPS.find((s) => s > this.zoom + 1e-6) ?? MAX_ZOOM);
  }

  zoomOut() {
    this.zoomTo([...STEPS].reverse().find((s) => s < this.zoom - 1e-6) ?? MIN_ZOOM);
  }

  fit() {
    this.zoom = 1;
    this.centre = [this.width / 2, this.height / 2];
    this._apply();
  }

  // To `zoom`, keeping the image point under `anchor` (client coordinates; the view's centre if none)
  // where it is on screen.
  zoomTo(zoom, anchor = null) {
    const next = clamp(zoom, MIN_ZOOM, MAX_ZOOM);
    if (anchor) {
      const [ax, ay] = this._offset(anchor);
      const before = this.scale;
      this.zoom = next;
      const after = this.scale;
      // The anchor's image point p = centre + a / scale: the same p before and after.
      this.centre = [this.centre[0] + ax / before - ax / after, this.centre[1] + ay / before - ay / after];
    } else {
      this.zoom = next;
    }
    this._apply();
  }

  // Move the view by screen pixels: the image follows the pointer (a drag right shows what is left).
  panBy(dx, dy) {
    const s = this.scale;
    this.centre = [this.centre[0] - dx / s, this.centre[1] - dy / s];
    this._apply();
  }

  // Space held: a drag pans instead of drawing (the cursor says so).
  holdSpace(held) {
    this.spaceHeld = held;
    this.svg.classList.toggle("pan-ready", held);
  }

  // --- the view ---

  _fitScale() {
    const [w, h] = this.size;
    return Math.min(w / this.width, h / this.height) || 1;
  }

  // The anchor relative to the view's centre, in screen pixels.
  _offset([clientX, clientY]) {
    const rect = this.svg.getBoundingClientRect();
    return [clientX - rect.left - rect.width / 2, clientY - rect.top - rect.height / 2];
  }

  // Clamp the centre so that the view never leaves the image along an axis where the image is larger
  // than the view, and centres it where it is smaller; then write the viewBox.
  _apply() {
    const s = this.scale;
    const [w, h] = this.size;
    const viewW = w ? w / s : this.width;
    const viewH = h ? h / s : this.height;
    const within = (c, view, full) => (view >= full ? full / 2 : clamp(c, view / 2, full - view / 2));
    this.centre = [within(this.centre[0], viewW, this.width), within(this.centre[1], viewH, this.height)];
    const box = [this.centre[0] - viewW / 2, this.centre[1] - viewH / 2, viewW, viewH];
    this.svg.setAttribute("viewBox", box.map((v) => +v.toFixed(3)).join(" "));
    this.svg.dataset.zoom = String(this.zoom);
    this.onChange(this);
  }

  // --- the pointer ---

  _listen() {
    const svg = this.svg;
    svg.addEventListener("wheel", (e) => this._wheel(e), { passive: false });
    // Capture: a pan or a pinch is decided here before the boxes see the pointer.
    svg.addEventListener("pointerdown", (e) => this._down(e), { capture: true });
    svg.addEventListener("pointermove", (e) => this._move(e), { capture: true });
    svg.addEventListener("pointerup", (e) => this._up(e), { capture: true });
    svg.addEventListener("pointercancel", (e) => this._up(e), { capture: true });
    svg.addEventListener("auxclick", (e) => e.button === 1 && e.preventDefault()); // no middle-click scroll
    new ResizeObserver(([entry]) => {
      this.size = [entry.contentRect.width, entry.contentRect.height];
      this._apply();
    }).observe(svg);
    window.addEventListener("keyup", (e) => e.key === " " && this.holdSpace(false));
    window.addEventListener("blur", () => this.holdSpace(false));
  }

  _wheel(e) {
    e.preventDefault(); // the page does not scroll under the image
    const delta = e.deltaY * (e.deltaMode === 1 ? LINE_PX : 1);
    this.zoomTo(this.zoom * Math.exp(-delta * WHEEL_RATE), [e.clientX, e.clientY]);
  }

  _down(e) {
    if (e.isPrimary) this.pointers.clear(); // the first finger or the mouse: nothing else is down
    this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
    if (this.pointers.size === 2) {
      this._begin("pinch", e);
    } else if (this.pointers.size === 1 && (e.button === 1 || (e.button === 0 && this.spaceHeld))) {
      this._begin("pan", e);
    } else if (this.pointers.size === 1 && e.button === 0 && this.dragPans) {
      // Not claimed yet: a click still selects a box; a move past the threshold pans.
      this.gesture = { kind: "maybe-pan", pointer: e.pointerId, from: [e.clientX, e.clientY] };
      return;
    } else {
      return;
    }
    e.preventDefault();
    e.stopImmediatePropagation(); // the boxes never see the pointer that pans or pinches
  }

  _begin(kind, e) {
    this.onGesture();
    for (const id of this.pointers.keys()) {
      if (!this.svg.hasPointerCapture(id)) this.svg.setPointerCapture(id);
    }
    this.gesture = { kind, last: this._pinchFrame() };
    this.svg.classList.add("panning");
  }

  // The pointers' midpoint and spread: a pinch zooms by the spread's ratio about the midpoint, and
  // pans by the midpoint's move; with one pointer the spread is 0 and only the pan applies.
  _pinchFrame() {
    const points = [...this.pointers.values()].slice(0, 2);
    const mid = [0, 1].map((i) => points.reduce((sum, p) => sum + p[i], 0) / points.length);
    const spread = points.length === 2 ? Math.hypot(points[0][0] - points[1][0], points[0][1] - points[1][1]) : 0;
    return { mid, spread };
  }

  _move(e) {
    if (!this.pointers.has(e.pointerId)) return;
    this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
    const gesture = this.gesture;
    if (!gesture) return;
    if (gesture.kind === "maybe-pan") {
      const moved = Math.hypot(e.clientX - gesture.from[0], e.clientY - gesture.from[1]);
      if (moved < PAN_THRESHOLD_PX) return;
      this._begin("pan", e);
      this.gesture.last = { mid: gesture.from, spread: 0 };
    }
    const now = this._pinchFrame();
    const last = this.gesture.last;
    // The image point under the fingers' last midpoint stays under their midpoint: zoomed about the
    // last one, then moved to the new one.
    if (this.gesture.kind === "pinch" && last.spread > 0 && now.spread > 0) {
      this.zoomTo(this.zoom * (now.spread / last.spread), last.mid);
    }
    this.panBy(now.mid[0] - last.mid[0], now.mid[1] - last.mid[1]);
    this.gesture.last = now;
    e.stopImmediatePropagation();
  }

  _up(e) {
    if (!this.pointers.delete(e.pointerId)) return;
    const gesture = this.gesture;
    if (!gesture) return;
    if (this.svg.hasPointerCapture(e.pointerId)) this.svg.releasePointerCapture(e.pointerId);
    if (gesture.kind === "pinch" && this.pointers.size === 1) {
      // One finger still down: it goes on panning, and never starts a box.
      this.gesture = { kind: "pan", last: this._pinchFrame() };
    } else if (this.pointers.size === 0) {
      this.gesture = null;
      this.svg.classList.remove("panning");
      if (gesture.kind === "maybe-pan") return; // a click: the boxes take it
    }
    e.stopImmediatePropagation();
  }
}
