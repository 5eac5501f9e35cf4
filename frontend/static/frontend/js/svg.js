// Small helpers for writing SVG, shared by the box layer and its selection overlay.

const NS = "http://www.w3.org/2000/svg";

export const make = (name, attributes = {}) => {
  const element = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attributes)) element.setAttribute(k, v);
  return element;
};

// Four attribute writes and no read: safe to call on every pointer move.
export const setRect = (element, [x, y, w, h]) => {
  element.setAttribute("x", x);
  element.setAttribute("y", y);
  element.setAttribute("width", w);
  element.setAttribute("height", h);
};

export const readRect = (element) => ["x", "y", "width", "height"].map((a) => +element.getAttribute(a));
