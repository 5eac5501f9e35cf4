// Box arithmetic in image pixels, free of the DOM: what a drag makes of a box.

export const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
export const area = (bbox) => bbox[2] * bbox[3];
export const contains = ([x, y, w, h], [px, py]) => px >= x && px <= x + w && py >= y && py <= y + h;

// The box a drag describes so far. `drag`: {kind: "draw" | "move" | "resize", start: [x, y],
// original: [x, y, w, h] (move, resize), handle: "nw" | "n" | ... (resize)}; `point` is already
// clamped to the image, and a moved box stays whole inside it.
export function dragged(drag, [px, py], width, height) {
  const [sx, sy] = drag.start;
  if (drag.kind === "draw") {
    return [Math.min(sx, px), Math.min(sy, py), Math.abs(px - sx), Math.abs(py - sy)];
  }
  const [x, y, w, h] = drag.original;
  if (drag.kind === "move") {
    return [clamp(x + px - sx, 0, width - w), clamp(y + py - sy, 0, height - h), w, h];
  }
  // Resize: the handle's edges follow the pointer; dragging past the opposite edge flips the box.
  let [x0, y0, x1, y1] = [x, y, x + w, y + h];
  if (drag.handle.includes("w")) x0 = px;
  if (drag.handle.includes("e")) x1 = px;
  if (drag.handle.includes("n")) y0 = py;
  if (drag.handle.includes("s")) y1 = py;
  return [Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0), Math.abs(y1 - y0)];
}

// Whole pixels: what an annotator can see, and a value that survives export and import unchanged.
export function round([x, y, w, h]) {
  const x0 = Math.round(x);
  const y0 = Math.round(y);
  return [x0, y0, Math.round(x + w) - x0, Math.round(y + h) - y0];
}
