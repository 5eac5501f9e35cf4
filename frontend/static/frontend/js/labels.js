// Where the boxes' names ("person 2") and the relationships' names go on the image, free of the DOM.
//
// Names keep one size on screen whatever the zoom, so which of them collide depends on the zoom: the
// placing is done in screen pixels and redone when the zoom changes. A name sits outside the box it
// names (above it, below it, or beside it), never over another name, and inside the image; a name with
// no such place is not drawn until a zoom makes room (the selected box's name is always drawn: it is
// placed first). On a phone, where a 20 px person is 12 px on screen, this is what keeps names readable.

export const NAME_PX = 13; // the names' font size on screen
const LINE_PX = NAME_PX + 4; // a name's height on screen, with its halo
const BASELINE_PX = 13; // from a name's top to its baseline
const GAP_PX = 2; // between a box and its name

const overlaps = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];

// The places a name may take around its box [x, y, w, h] (screen pixels), best first: above and below
// at the left edge, at the right edge, then beside the top corners.
function spots([x, y, w, h], width) {
  const above = y - LINE_PX - GAP_PX;
  const below = y + h + GAP_PX;
  const right = x + w - width;
  return [
    [x, above], [x, below], [right, above], [right, below],
    [x + w + GAP_PX, y], [x - width - GAP_PX, y],
  ].map(([left, top]) => [left, top, width, LINE_PX]);
}

// The selected box's name: above the box when the image has room there, else below it (image pixels,
// the text's left end and baseline). The selection overlay draws it there, even mid-drag.
export function selectedSpot([x, y, w, h], scale) {
  const top = y * scale >= LINE_PX + GAP_PX ? y * scale - LINE_PX - GAP_PX : (y + h) * scale + GAP_PX;
  return [x, (top + BASELINE_PX) / scale];
}

// names: [{key, bbox (image px), width (screen px)}], in the order they claim a place (the selected
// box's first); links: [{at: [x, y] (image px, the name's centre), width}]; scale: screen px per image
// px; width, height: the image's. Returns {names: Map(key -> [x, y] | null), links: [[x, y] | null]},
// each [x, y] the text's left end and baseline in image pixels (links: its centre and baseline).
export function placeLabels(names, links, { scale, width, height, selected = null }) {
  const image = [0, 0, width * scale, height * scale];
  const inside = (r) => r[0] >= image[0] && r[1] >= image[1] && r[0] + r[2] <= image[2] && r[1] + r[3] <= image[3];
  const taken = [];
  const free = (r) => inside(r) && !taken.some((t) => overlaps(r, t));
  const toImage = ([left, top]) => [left / scale, (top + BASELINE_PX) / scale];
  const placedNames = new Map();
  for (const { key, bbox, width: nameWidth } of names) {
    const box = bbox.map((v) => v * scale);
    let spot;
    if (key === selected) {
      const [sx, sy] = selectedSpot(bbox, scale);
      spot = [sx * scale, sy * scale - BASELINE_PX, nameWidth, LINE_PX];
    } else {
      spot = spots(box, nameWidth).find(free);
    }
    if (spot) taken.push(spot);
    placedNames.set(key, spot ? toImage(spot) : null);
  }
  const placedLinks = links.map(({ at, width: nameWidth }) => {
    const spot = [at[0] * scale - nameWidth / 2, at[1] * scale - LINE_PX / 2, nameWidth, LINE_PX];
    if (!free(spot)) return null;
    taken.push(spot);
    return [at[0], (spot[1] + BASELINE_PX) / scale];
  });
  return { names: placedNames, links: placedLinks };
}
