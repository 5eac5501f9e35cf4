// The annotation being edited, and the one place that changes it.
//
// Objects keep their order (the server names them o1..oN by it) and get a client key that never
// changes while the page lives, so the selection and the relationships survive saves, deletions and
// undo. Every change records a snapshot first (undo; the page may tag it with a step of its own, and
// record steps that change no box, so that undo takes back whichever came last), bumps the revision (unsaved changes) and
// announces itself with a fine-grained event ({kind, key}), so each view updates only what changed:
// moving one box of a hundred touches one SVG element, not the scene.

let lastKey = 0;
const newKey = () => `k${++lastKey}`;
const UNDO_DEPTH = 200;

export class AnnotationStore extends EventTarget {
  constructor(record, vocabulary) {
    super();
    this.vocabulary = vocabulary;
    this.order = [];
    this.objects = new Map();
    this.relationships = [];
    this.history = [];
    this.revision = 0;
    this.savedRevision = 0;
    this.load(record);
  }

  // --- reading ---

  get dirty() {
    return this.revision !== this.savedRevision;
  }

  get(key) {
    return this.objects.get(key);
  }

  get size() {
    return this.order.length;
  }

  // "person 2": the type and a per-type counter in object order, as the engine labels objects.
  labels() {
    const counters = new Map();
    const labels = new Map();
    for (const key of this.order) {
      const type = this.objects.get(key).type;
      const n = (counters.get(type) || 0) + 1;
      counters.set(type, n);
      labels.set(key, `${type} ${n}`);
    }
    return labels;
  }

  // The PUT body of the annotation API; keys serve as the object ids of the request.
  toDocument() {
    return {
      objects: this.order.map((key) => {
        const o = this.objects.get(key);
        // What the source said besides (flags, its own ids and names) goes back as it came.
        const object = { id: key, type: o.type, bbox: [...o.bbox], attributes: [...o.attributes], attributes_known: o.known };
        if (o.unknown.length) object.unknown = [...o.unknown];
        if (o.flags.length) object.flags = [...o.flags];
        if (o.source) object.source = o.source;
        // Accepting a model's suggestion is saving an object that names it; the server works out the rest.
        if (o.suggestion) object.suggestion = o.suggestion;
        return object;
      }),
      relationships: this.relationships.map((r) => ({ ...r })),
    };
  }

  // --- loading and saving ---

  // A scene-graph record from the server (ids "o1".."oN"); replaces everything, forgets undo.
  load(record) {
    this.order = [];
    this.objects = new Map();
    const keyOf = new Map();
    for (const o of record.objects) {
      const key = newKey();
      keyOf.set(o.id, key);
      this.order.push(key);
      this.objects.set(key, this._object(key, o));
    }
    this.relationships = record.relationships.map((r) => ({
      subject: keyOf.get(r.subject),
      predicate: r.predicate,
      object: keyOf.get(r.object),
    }));
    this.history = [];
    this.savedRevision = this.revision;
    this._emit("reset");
  }

  // The server's answer to a save: the same objects in the same order, normalised (boxes clipped and
  // rounded, attributes in vocabulary order, symmetric relationships one way round). It is applied
  // only when nothing changed while the request was in flight; otherwise the newer edits win and
  // stay unsaved.
  saved(record, revision, sentKeys) {
    if (revision !== this.revision) {
      return false;
    }
    const keyOf = new Map(record.objects.map((o, i) => [o.id, sentKeys[i]]));
    record.objects.forEach((o, i) => {
      const object = this._object(sentKeys[i], o);
      // The server knows nothing of the ticks "attributes unknown" set aside: U off after a save brings them back too.
      object.keptAside = this.objects.get(sentKeys[i])?.keptAside ?? null;
      this.objects.set(sentKeys[i], object);
    });
    this.relationships = record.relationships.map((r) => ({
      subject: keyOf.get(r.subject),
      predicate: r.predicate,
      object: keyOf.get(r.object),
    }));
    this.savedRevision = this.revision;
    this._emit("reset");
    return true;
  }

  // `unknown`: the attribute groups nobody has told yet (all of them when a record says only
  // attributes_known: false); `known` while there are none.
  _object(key, o) {
    const unknown = o.unknown ? [...o.unknown] : o.attributes_known === false ? this._groupNames(o.type) : [];
    return {
      key,
      type: o.type,
      bbox: o.bbox.map(Number),
      attributes: [...o.attributes],
      unknown,
      known: unknown.length === 0,
      flags: [...(o.flags || [])],
      source: o.source || null,
      // The model's suggestion the box was accepted from: its id, and once saved what the server says of
      // it ({id, model_version, score, edited}).
      suggestion: o.suggestion?.id ?? o.suggestion ?? null,
      fromModel: o.suggestion?.id ? { ...o.suggestion } : null,
      keptAside: null, // what "attributes unknown" cleared (setUnknown)
    };
  }

  _groupNames(type) {
    return this.vocabulary.groups(type).map((g) => g.name);
  }

  // --- changing ---

  add({ type, bbox, attributes = [], suggestion = null }) {
    const [key] = this.addMany([{ type, bbox, attributes, suggestion }]);
    return key;
  }

  // Boxes added in one step (one undo): a drawn box, or suggestions accepted together. `suggestion`:
  // the model's suggestion a box is accepted from; `step`: what undo hands back to the page.
  addMany(items, step = null) {
    const keys = items.map(() => newKey());
    this._change(() => {
      items.forEach(({ type, bbox, attributes = [], suggestion = null }, i) => {
        const key = keys[i];
        this.order.push(key);
        const values = this.vocabulary.keep(type, attributes);
        this.objects.set(key, { key, type, bbox, attributes: values, unknown: [], known: true, flags: [], source: null, suggestion, fromModel: null, keptAside: null });
      });
    }, step);
    if (keys.length === 1) this._emit("add", keys[0]);
    else if (keys.length) this._emit("reset");
    return keys;
  }

  // The suggestions the boxes of the page come from (saved or not).
  suggestionIds() {
    return new Set(this.order.map((key) => this.objects.get(key).suggestion).filter(Boolean));
  }

  remove(key) {
    if (!this.objects.has(key)) return;
    this._change(() => {
      this.order = this.order.filter((k) => k !== key);
      this.objects.delete(key);
      this.relationships = this.relationships.filter((r) => r.subject !== key && r.object !== key);
    });
    this._emit("remove", key);
  }

  setBox(key, bbox) {
    const o = this.objects.get(key);
    if (!o || o.bbox.every((v, i) => v === bbox[i])) return;
    this._change(() => {
      o.bbox = bbox;
    });
    this._emit("box", key);
  }

  // A new type keeps the attributes the type also has, and drops relationships it no longer allows.
  // Returns how many relationships were dropped, so the page can say so (undo brings them back).
  setType(key, type) {
    const o = this.objects.get(key);
    if (!o || o.type === type) return 0;
    let dropped = 0;
    this._change(() => {
      o.type = type;
      o.attributes = this.vocabulary.keep(type, o.attributes);
      o.unknown = o.known ? [] : this._groupNames(type);
      const before = this.relationships.length;
      this.relationships = this.relationships.filter((r) => {
        if (r.subject !== key && r.object !== key) return true;
        return this.vocabulary.allows(r.predicate, this.objects.get(r.subject).type, this.objects.get(r.object).type);
      });
      dropped = before - this.relationships.length;
    });
    this._emit("type", key);
    return dropped;
  }

  // The groups whose values changed (and `told`, a group set to none) are told: they leave `unknown`;
  // the others stay as they were.
  setAttributes(key, attributes, told = []) {
    const o = this.objects.get(key);
    if (!o) return;
    this._change(() => {
      const next = this.vocabulary.keep(o.type, attributes);
      const changed = new Set(told);
      for (const value of [...next, ...o.attributes]) {
        if (next.includes(value) !== o.attributes.includes(value)) changed.add(this.vocabulary.groupOf(o.type, value).name);
      }
      o.unknown = o.unknown.filter((g) => !changed.has(g));
      o.attributes = next;
      o.known = o.unknown.length === 0;
    });
    this._emit("attributes", key);
  }

  // "Attributes unknown": every group unknown and nothing ticked.
  allUnknown(key) {
    const o = this.objects.get(key);
    const groups = o ? this._groupNames(o.type) : [];
    return groups.length > 0 && o.unknown.length === groups.length && o.attributes.length === 0;
  }

  // The switch (U). "Attributes unknown" means no attributes at all (docs/method.md section 9), so
  // switching it on clears them, but sets them aside: switched off again, the box is as it was, its
  // ticks and its still-unknown groups alike (a slip of the key must not cost the ticks). With nothing
  // set aside for this type (the box came unknown, or was retyped since), off tells every group: none.
  setUnknown(key, on) {
    const o = this.objects.get(key);
    if (!o || on === this.allUnknown(key)) return;
    this._change(() => {
      const kept = o.keptAside?.type === o.type ? o.keptAside : { attributes: [], unknown: [] };
      o.keptAside = on ? { type: o.type, attributes: o.attributes, unknown: o.unknown } : null;
      o.attributes = on ? [] : kept.attributes;
      o.unknown = on ? this._groupNames(o.type) : kept.unknown;
      o.known = o.unknown.length === 0;
    });
    this._emit("attributes", key);
  }

  // The same relationship twice (or a symmetric one both ways round) is refused: it would mean nothing more.
  hasRelationship({ subject, predicate, object }) {
    const symmetric = this.vocabulary.isSymmetric(predicate);
    return this.relationships.some(
      (r) =>
        r.predicate === predicate &&
        ((r.subject === subject && r.object === object) || (symmetric && r.subject === object && r.object === subject)),
    );
  }

  addRelationship(relationship) {
    if (this.hasRelationship(relationship)) return false;
    this._change(() => this.relationships.push({ ...relationship }));
    this._emit("relationships");
    return true;
  }

  removeRelationship(index) {
    if (!this.relationships[index]) return;
    this._change(() => this.relationships.splice(index, 1));
    this._emit("relationships");
  }

  // A step of the page's own that changes no box (a model's suggestion rejected), in the same history
  // as the edits: undo hands it back to the page, which takes it back.
  remember(step) {
    this._record({ snapshot: null, step });
    this._emit("history");
  }

  // Takes back the last change or step. Returns the page's step recorded with it, if any, for the page
  // to take back its part (the server's decision on a suggestion).
  undo() {
    const entry = this.history.pop();
    if (!entry) return null;
    const snapshot = entry.snapshot;
    if (snapshot) {
      this.order = snapshot.order;
      this.objects = new Map(snapshot.objects.map((o) => [o.key, o]));
      this.relationships = snapshot.relationships;
      this.revision++;
    }
    this._emit(snapshot ? "reset" : "history");
    return entry.step;
  }

  get canUndo() {
    return this.history.length > 0;
  }

  _change(mutate, step = null) {
    const snapshot = structuredClone({ order: this.order, objects: [...this.objects.values()], relationships: this.relationships });
    this._record({ snapshot, step });
    mutate();
    this.revision++;
  }

  _record(entry) {
    this.history.push(entry);
    if (this.history.length > UNDO_DEPTH) this.history.shift();
  }

  _emit(kind, key = null) {
    this.dispatchEvent(new CustomEvent("change", { detail: { kind, key } }));
  }
}
