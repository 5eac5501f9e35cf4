// The side panel's lists: every box (with its attributes, so a reviewer reads the annotation without
// clicking through it) and every relationship, each with a remove button when editing.
// They are rebuilt whole only on structural changes (a box added, removed or retyped, a relationship
// added or removed, undo); a tick updates one line; a drag touches neither.

const li = (attributes, ...children) => {
  const item = document.createElement("li");
  for (const [k, v] of Object.entries(attributes)) item.setAttribute(k, v);
  item.append(...children);
  return item;
};

const button = (text, attributes) => {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  for (const [k, v] of Object.entries(attributes)) b.setAttribute(k, v);
  return b;
};

export const summary = (o) => {
  if (o.known) return o.attributes.join(", ") || "no attributes ticked";
  if (!o.attributes.length) return `unknown: ${o.unknown.join(", ") || "attributes"}`;
  return `${o.attributes.join(", ")}; unknown: ${o.unknown.join(", ")}`;
};

export class ObjectList {
  constructor(root, { store, onSelect }) {
    this.list = root.querySelector("[data-role=objects]");
    this.count = root.querySelector("[data-role=object-count]");
    this.store = store;
    this.items = new Map();
    this.selected = null;
    this.list.addEventListener("click", (e) => {
      const key = e.target.closest("li[data-key]")?.dataset.key;
      if (key) onSelect(key);
    });
  }

  render(labels) {
    this.items.clear();
    const fragment = document.createDocumentFragment();
    for (const key of this.store.order) {
      const o = this.store.get(key);
      const name = button(labels.get(key), { class: "link name" });
      const details = document.createElement("span");
      details.className = "summary";
      details.textContent = summary(o);
      const item = li({ "data-key": key, class: `t-${o.type.replace(/\W+/g, "-")}` }, name, " ", details);
      if (o.fromModel) {
        // Which model version proposed the box, and whether the person changed it (decision 0078).
        const mark = document.createElement("span");
        mark.className = "from-model";
        mark.dataset.testid = "from-model";
        mark.textContent = `from model ${o.fromModel.model_version || "(no version)"}${o.fromModel.edited ? ", edited" : ""}`;
        item.append(" ", mark);
      }
      this.items.set(key, item);
      fragment.append(item);
    }
    this.list.replaceChildren(fragment);
    this.count.textContent = this.store.size;
    this.select(this.selected, false);
  }

  update(key) {
    const item = this.items.get(key);
    const o = this.store.get(key);
    if (item && o) item.querySelector(".summary").textContent = summary(o);
  }

  select(key, scroll = true) {
    this.items.get(this.selected)?.classList.remove("selected");
    this.selected = key;
    const item = this.items.get(key);
    if (!item) return;
    item.classList.add("selected");
    if (scroll) this._reveal(item);
  }

  // Scroll the list, and only the list: scrollIntoView would also scroll the side panel and hide
  // the buttons above it (a reviewer's Accept). Reads layout, but only when the selection changes.
  _reveal(item) {
    const list = this.list;
    const top = item.offsetTop;
    const bottom = top + item.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
  }

  setInvalid(keys) {
    for (const [key, item] of this.items) item.classList.toggle("invalid", keys.has(key));
  }
}

export class RelationshipList {
  // onRemove(index) is absent on read-only pages.
  constructor(root, { store, vocabulary, onRemove, onSelect }) {
    this.list = root.querySelector("[data-role=relationships]");
    this.count = root.querySelector("[data-role=relationship-count]");
    this.store = store;
    this.vocabulary = vocabulary;
    this.onRemove = onRemove;
    this.list.addEventListener("click", (e) => {
      const remove = e.target.closest("[data-remove]");
      if (remove && this.onRemove) return this.onRemove(Number(remove.dataset.remove));
      const key = e.target.closest("[data-subject]")?.dataset.subject;
      if (key && onSelect) onSelect(key);
    });
  }

  render(labels, errors = new Map()) {
    const items = this.store.relationships.map((r, index) => {
      const symmetric = this.vocabulary.isSymmetric(r.predicate);
      const text = document.createElement("span");
      text.className = "relation";
      text.dataset.subject = r.subject;
      text.textContent = symmetric
        ? `${labels.get(r.subject)} ↔ ${r.predicate} ↔ ${labels.get(r.object)}`
        : `${labels.get(r.subject)} → ${r.predicate} → ${labels.get(r.object)}`;
      if (symmetric) text.title = `${r.predicate} is symmetric: it holds both ways`;
      const item = li({ "data-index": index }, text);
      if (this.onRemove) item.append(" ", button("×", { class: "link remove", "data-remove": index, title: "Remove this relationship", "aria-label": `Remove ${text.textContent}` }));
      const error = errors.get(index);
      if (error) {
        const p = document.createElement("p");
        p.className = "field-error";
        p.textContent = error;
        item.classList.add("invalid");
        item.append(p);
      }
      return item;
    });
    if (!items.length) items.push(li({ class: "muted" }, "No relationships."));
    this.list.replaceChildren(...items);
    this.count.textContent = this.store.relationships.length;
  }
}
