// The side panel's form for the selected box: its type, its coordinates, "attributes unknown", and
// its attributes built from the vocabulary (radio buttons for an exclusive group, with a way to clear
// it; check boxes otherwise). The form is rebuilt only when the selected box or its type changes;
// ticking a value updates the store, and the store's event updates the checks.

const el = (tag, attributes = {}, ...children) => {
  const element = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (v === false || v == null) continue;
    if (k === "text") element.textContent = v;
    else element.setAttribute(k, v === true ? "" : v);
  }
  element.append(...children);
  return element;
};

export class ObjectEditor {
  // actions: setType(key, type), setBox(key, bbox), setAttributes(key, values, told), setUnknown(key, on),
  // remove(key), link(key)
  constructor(root, { store, vocabulary, readOnly, actions }) {
    this.root = root;
    this.store = store;
    this.vocabulary = vocabulary;
    this.readOnly = readOnly;
    this.actions = actions;
    this.key = null;
    this.builtFor = null; // the type whose attributes the form shows
    this.title = root.querySelector("[data-role=editor-title]");
    this.body = root.querySelector("[data-role=editor-body]");
    this.hint = root.querySelector("[data-role=editor-hint]");
    this.typeSelect = root.querySelector("[data-role=type]");
    this.coords = [...root.querySelectorAll("[data-coord]")];
    this.unknown = root.querySelector("[data-role=unknown]");
    this.flags = root.querySelector("[data-role=flags]");
    this.attributes = root.querySelector("[data-role=attributes]");
    this.actionsRow = root.querySelector("[data-role=editor-actions]");
    this.note = root.querySelector("[data-role=editor-note]");
    this.errors = Object.fromEntries([...root.querySelectorAll("[data-error]")].map((e) => [e.dataset.error, e]));
    this._fillTypes();
    this._listen();
    this._applyReadOnly();
    this.show(null);
  }

  // From now on the form only shows (the image was submitted or decided): every field disabled, the
  // box's buttons gone, and a note at the top saying why.
  setReadOnly(note) {
    this.readOnly = true;
    this.builtFor = null; // rebuilt without the "clear" buttons
    if (this.note && note) {
      this.note.textContent = note;
      this.note.hidden = false;
    }
    this._applyReadOnly();
    this.show(this.key, this.title.textContent);
  }

  _applyReadOnly() {
    this.root.classList.toggle("read-only", this.readOnly);
    if (this.actionsRow) this.actionsRow.hidden = this.readOnly;
    this.typeSelect.disabled = this.readOnly;
    this.unknown.disabled = this.readOnly;
    this.coords.forEach((c) => (c.disabled = this.readOnly));
  }

  _fillTypes() {
    this.typeSelect.replaceChildren(
      ...this.vocabulary.types.map((t, i) => el("option", { value: t, text: i < 9 ? `${t} (${i + 1})` : t })),
    );
  }

  // Listeners are always there; a read-only form's fields are disabled and its actions do nothing.
  _listen() {
    const act = (name) => (...args) => !this.readOnly && this.actions[name]?.(...args);
    this.typeSelect.addEventListener("change", () => act("setType")(this.key, this.typeSelect.value));
    // A typed coordinate is sent as typed: the server is the judge of boxes (it clips them to the image
    // and refuses degenerate ones), and its message appears beside these fields.
    for (const input of this.coords) {
      input.addEventListener("change", () => {
        const bbox = this.coords.map((c) => Number(c.value));
        if (bbox.every(Number.isFinite)) act("setBox")(this.key, bbox);
      });
    }
    this.unknown.addEventListener("change", () => act("setUnknown")(this.key, this.unknown.checked));
    this.attributes.addEventListener("change", (e) => this._ticked(e.target));
    this.attributes.addEventListener("click", (e) => {
      const group = e.target.closest("[data-clear]")?.dataset.clear;
      if (group) this._clear(group);
    });
    this.root.addEventListener("click", (e) => {
      const action = e.target.closest("[data-action]")?.dataset.action;
      if (action === "delete") act("remove")(this.key);
      if (action === "link") act("link")(this.key);
    });
  }

  _ticked(input) {
    const o = this.store.get(this.key);
    if (this.readOnly || !o || !input.matches("input[data-value]")) return;
    const group = this.vocabulary.groups(o.type).find((g) => g.name === input.dataset.group);
    let values = o.attributes.filter((v) => !group.exclusive || !group.values.includes(v));
    if (input.checked) values.push(input.dataset.value);
    else values = values.filter((v) => v !== input.dataset.value);
    this.actions.setAttributes(this.key, values);
  }

  _clear(groupName) {
    const o = this.store.get(this.key);
    if (this.readOnly || !o) return;
    const group = this.vocabulary.groups(o.type).find((g) => g.name === groupName);
    this.actions.setAttributes(this.key, o.attributes.filter((v) => !group.values.includes(v)), [groupName]);
  }

  // --- showing ---

  show(key, label = "") {
    const o = key ? this.store.get(key) : null;
    this.key = o ? key : null;
    this.body.hidden = !o;
    if (this.hint) this.hint.hidden = Boolean(o);
    this.title.textContent = o ? label : "No box selected";
    if (!o) return;
    if (this.builtFor !== o.type) {
      this._build(o);
      this.builtFor = o.type;
    }
    this.refresh();
  }

  // The values of the selected box, without rebuilding the form (after a tick, a drag, an undo).
  refresh() {
    const o = this.store.get(this.key);
    if (!o) return this.show(null);
    if (this.builtFor !== o.type) return this.show(o.key, this.title.textContent);
    this.typeSelect.value = o.type;
    this.coords.forEach((input, i) => {
      input.value = +o.bbox[i].toFixed(2);
    });
    // Some groups unknown (an import's partial attributes): those are marked, the rest stay editable.
    const allUnknown = this.store.allUnknown(o.key);
    this.unknown.checked = allUnknown;
    const ticked = new Set(o.attributes);
    for (const input of this.attributes.querySelectorAll("input[data-value]")) {
      input.checked = ticked.has(input.dataset.value);
      input.disabled = this.readOnly || allUnknown;
    }
    for (const button of this.attributes.querySelectorAll("[data-clear]")) {
      button.disabled = this.readOnly || allUnknown;
    }
    for (const fieldset of this.attributes.querySelectorAll("fieldset[data-group]")) {
      const unknown = !allUnknown && o.unknown.includes(fieldset.dataset.group);
      fieldset.classList.toggle("unknown", unknown);
      fieldset.querySelector(".still-unknown").hidden = !unknown;
    }
    this.attributes.classList.toggle("disabled", allUnknown);
    if (this.flags) this.flags.textContent = flagText(o);
  }

  _build(o) {
    const groups = this.vocabulary.groups(o.type).map((group) => {
      const inputs = group.values.map((value) =>
        el(
          "label",
          { class: "value" },
          el("input", {
            type: group.exclusive ? "radio" : "checkbox",
            name: `attr-${group.name}`,
            "data-group": group.name,
            "data-value": value,
            disabled: this.readOnly,
          }),
          ` ${value}`,
        ),
      );
      const legend = el("legend", { text: group.name });
      legend.append(" ", el("span", { class: "still-unknown", text: "still unknown", hidden: true }));
      if (!this.readOnly) {
        // For a group of flags "none" tells the group: none of them holds.
        const text = group.exclusive ? "clear" : "none";
        legend.append(" ", el("button", { type: "button", class: "link clear", "data-clear": group.name, text, title: `No ${group.name}` }));
      }
      return el("fieldset", { class: group.exclusive ? "group exclusive" : "group", "data-group": group.name }, legend, ...inputs);
    });
    this.attributes.replaceChildren(...groups);
    this._applyReadOnly();
  }

  // A server error about this box, shown beside the field it names (bbox, attributes, type or the box).
  showError(field, message) {
    this.clearErrors();
    const slot = this.errors[field] || this.errors.object;
    slot.textContent = message;
    slot.hidden = false;
  }

  clearErrors() {
    for (const slot of Object.values(this.errors)) {
      slot.textContent = "";
      slot.hidden = true;
    }
  }
}

// What the source said of the box besides its type: shown, never edited here (kept and exported back).
const FLAG_TEXT = { occluded: "occluded", truncated: "truncated", inside: "seen from inside", depiction: "a depiction (not in tests)", group: "a group box (not in tests)", added: "added from a relationship" };

export function flagText(o) {
  const flags = o.flags.map((f) => FLAG_TEXT[f] || f);
  const source = o.source && o.source.id !== undefined ? `source id ${o.source.id}` : "";
  const name = o.source && o.source.names && o.source.names.length ? `named “${o.source.names[0]}”` : "";
  return [...flags, name, source].filter(Boolean).join(" · ");
}
