// The selected box's overlay: a dashed outline, its label ("person 2") and eight resize handles.
// Handles and label keep their size on screen whatever the zoom, so their size in image pixels is
// recomputed when the zoom changes (zoom.js), never during a drag.

import { NAME_PX, selectedSpot } from "./labels.js";
import { make, setRect } from "./svg.js";

export const HANDLES = ["nw", "n", "ne", "e", "se", "s", "sw", "w"];
const HANDLE_PX = 10;

export class SelectionOverlay {
  constructor({ withHandles }) {
    this.group = make("g", { class: "selection", visibility: "hidden" });
    this.outline = make("rect", { class: "outline" });
    this.label = make("text", { class: "label" });
    this.group.append(this.outline, this.label);
    this.handles = withHandles
      ? HANDLES.map((h) => {
          const handle = make("rect", { class: `handle h-${h}`, "data-handle": h });
          this.group.append(handle);
          return handle;
        })
      : [];
    this.scale = 1;
  }

  setScale(scale) {
    this.scale = scale;
    this.label.setAttribute("font-size", NAME_PX / scale);
  }

  setLabel(text) {
    this.label.textContent = text;
  }

  hide() {
    this.group.setAttribute("visibility", "hidden");
  }

  // Writes only: called on every pointer move of a drag of the selected box.
  place([x, y, w, h]) {
    const s = this.scale;
    this.group.setAttribute("visibility", "visible");
    setRect(this.outline, [x, y, w, h]);
    const [lx, ly] = selectedSpot([x, y, w, h], s);
    this.label.setAttribute("x", lx);
    this.label.setAttribute("y", ly);
    const size = HANDLE_PX / s;
    HANDLES.forEach((name, i) => {
      if (!this.handles[i]) return;
      const hx = name.includes("w") ? x : name.includes("e") ? x + w : x + w / 2;
      const hy = name.includes("n") ? y : name.includes("s") ? y + h : y + h / 2;
      setRect(this.handles[i], [hx - size / 2, hy - size / 2, size, size]);
    });
  }
}
