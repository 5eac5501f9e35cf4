// Where a refused save points. The engine's validator names the place in `fields.where`, like
// "annotation.objects[3].bbox" or "annotation.relationships[0].predicate"; DRF's own validation nests
// field errors as {"objects": [{}, {"bbox": ["..."]}]}. Indexes are those of the document that was
// sent, which the caller maps back to its boxes and relationships.

const FIELD_SLOTS = { bbox: "bbox", attributes: "attributes", attributes_known: "attributes", type: "type" };

export function locate(error) {
  const fields = error.fields || {};
  const where = typeof fields.where === "string" ? fields.where : "";
  let match = /objects\[(\d+)\](?:\.(\w+))?/.exec(where);
  if (match) return { object: Number(match[1]), slot: FIELD_SLOTS[match[2]] || "object", message: plain(error.message) };
  match = /relationships\[(\d+)\]/.exec(where);
  if (match) return { relationship: Number(match[1]), message: plain(error.message) };
  for (const kind of ["objects", "relationships"]) {
    const nested = fields[kind];
    if (!nested || typeof nested !== "object") continue;
    for (const [index, detail] of Array.isArray(nested) ? nested.entries() : Object.entries(nested)) {
      if (!detail || typeof detail !== "object" || !Object.keys(detail).length) continue;
      const [field, messages] = Object.entries(detail)[0];
      const message = `${field}: ${[messages].flat().join(" ")}`;
      return kind === "objects"
        ? { object: Number(index), slot: FIELD_SLOTS[field] || "object", message }
        : { relationship: Number(index), message };
    }
  }
  return { message: error.message };
}

// "annotation.objects[3].bbox: bbox lies outside …" -> "bbox lies outside …": the place is shown by
// where the message appears.
function plain(message) {
  return message.replace(/^annotation(\.[\w[\]]+)*: /, "");
}
