// Linking two boxes: the selected box is the subject; the object is picked by clicking it on the image
// (where boxes overlap, the smallest under the click, and the next at each click there), or chosen in
// the list, and the relationship is chosen among those the vocabulary allows for the
// two types, so the form cannot propose a link the server would refuse. Symmetric relationships are
// marked: their direction means nothing.

const option = (value, text, disabled = false) => {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  o.disabled = disabled;
  return o;
};

export class LinkForm {
  // onPickMode(on): the canvas lets a click choose a box; onMessage(text): a notice for the user.
  constructor(root, { store, vocabulary, onPickMode, onMessage }) {
    this.root = root;
    this.store = store;
    this.vocabulary = vocabulary;
    this.onPickMode = onPickMode;
    this.onMessage = onMessage;
    this.subjectLabel = root.querySelector("[data-role=link-subject]");
    this.objectSelect = root.querySelector("[data-role=link-object]");
    this.predicateSelect = root.querySelector("[data-role=link-predicate]");
    this.addButton = root.querySelector("[data-action=add-link]");
    this.subject = null;
    this.clicked = []; // the boxes under the last click on the image, but the subject
    this.objectSelect.addEventListener("change", () => this._fillPredicates());
    this.predicateSelect.addEventListener("change", () => this._enableAdd());
    root.addEventListener("click", (e) => {
      const action = e.target.closest("[data-action]")?.dataset.action;
      if (action === "add-link") this.add();
      if (action === "swap-link") this.swap();
      if (action === "cancel-link") this.close();
    });
    root.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && e.target.matches("select")) {
        e.preventDefault();
        this.add();
      }
    });
  }

  get isOpen() {
    return !this.root.hidden;
  }

  open(subject) {
    if (!subject) return this.onMessage("Select a box first, then link it (L).");
    if (this.store.size < 2) return this.onMessage("Draw a second box to link this one to.");
    this.subject = subject;
    this.clicked = [];
    this.root.hidden = false;
    this._fillObjects(null);
    this.onPickMode(true);
    this.objectSelect.focus();
  }

  // A click on the image while the form is open; `keys`: the boxes under it, smallest first. The
  // smallest but the subject is chosen; a click on the same boxes again (the same spot) chooses the
  // next of them, round and round, so a bicycle under its rider can be reached.
  pick(keys) {
    const candidates = keys.filter((k) => k !== this.subject);
    if (!candidates.length) return;
    const again = candidates.join() === this.clicked.join();
    const at = again ? candidates.indexOf(this.objectSelect.value) : -1;
    this.clicked = candidates;
    this._fillObjects(candidates[(at + 1) % candidates.length]);
    this.predicateSelect.focus();
  }

  swap() {
    const object = this.objectSelect.value;
    if (!object) return;
    const subject = this.subject;
    this.subject = object;
    this._fillObjects(subject);
  }

  add() {
    const relationship = { subject: this.subject, predicate: this.predicateSelect.value, object: this.objectSelect.value };
    if (!relationship.object || !relationship.predicate) return;
    if (!this.store.addRelationship(relationship)) {
      this.onMessage("This relationship is there already.");
      return;
    }
    this.close();
  }

  close() {
    if (!this.isOpen) return false;
    // Focus leaves the form's fields first: the browser moves it off a hidden field only at its next
    // rendering, and a key pressed before that (L to link the next box) went to the hidden field.
    if (this.root.contains(document.activeElement)) document.activeElement.blur();
    this.root.hidden = true;
    this.subject = null;
    this.onPickMode(false);
    return true;
  }

  // Labels change when boxes are added, removed or retyped: the open form follows.
  refresh() {
    if (!this.isOpen) return;
    if (!this.store.get(this.subject)) return this.close();
    this._fillObjects(this.store.get(this.objectSelect.value) ? this.objectSelect.value : null);
  }

  _fillObjects(selected) {
    const labels = this.store.labels();
    this.subjectLabel.textContent = labels.get(this.subject);
    const others = this.store.order.filter((k) => k !== this.subject);
    this.objectSelect.replaceChildren(option("", "choose or click a box…"), ...others.map((k) => option(k, labels.get(k))));
    this.objectSelect.value = selected || "";
    this._fillPredicates();
  }

  _fillPredicates() {
    const object = this.store.get(this.objectSelect.value);
    const subject = this.store.get(this.subject);
    if (!object || !subject) {
      this.predicateSelect.replaceChildren(option("", "—"));
      this.predicateSelect.disabled = true;
      this.addButton.disabled = true;
      return;
    }
    const allowed = this.vocabulary.allowedBetween(subject.type, object.type);
    const options = allowed.map((r) => option(r.name, r.symmetric ? `${r.name} (symmetric)` : r.name));
    // Nothing is chosen for the annotator: a pre-selected relationship is one careless click from a wrong link.
    options.unshift(allowed.length ? option("", "choose a relationship…") : option("", `nothing relates a ${subject.type} to a ${object.type}`, true));
    this.predicateSelect.replaceChildren(...options);
    this.predicateSelect.value = "";
    this.predicateSelect.disabled = !allowed.length;
    this._enableAdd();
  }

  _enableAdd() {
    this.addButton.disabled = !this.predicateSelect.value;
  }
}
