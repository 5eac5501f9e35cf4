// Where a refused save points. Every API error has `fields` keyed by the path of the offending value
// in the document that was sent, whoever found the problem (the engine's validator or the API's own
// checks): {"objects[3].bbox": ["..."]}, {"relationships[0].predicate": ["..."]}. Indexes are those of
// the document that was sent, which the caller maps back to its boxes and relationships.

const FIELD_SLOTS = { bbox: "bbox", attributes: "attributes", attributes_known: "attributes", type: "type" };

export function locate(error) {
  return locateAll(error)[0] || { message: error.message };
}

// Every place the error names, in the order of its fields (a refused submit names each incomplete box).
export function locateAll(error) {
  const places = [];
  for (const [path, messages] of Object.entries(error.fields || {})) {
    const message = [messages].flat().join(" ") || error.message;
    let match = /^objects\[(\d+)\](?:\.(\w+))?/.exec(path);
    if (match) places.push({ object: Number(match[1]), slot: FIELD_SLOTS[match[2]] || "object", message });
    match = /^relationships\[(\d+)\]/.exec(path);
    if (match) places.push({ relationship: Number(match[1]), message });
  }
  return places;
}
