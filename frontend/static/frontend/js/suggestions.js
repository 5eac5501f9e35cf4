// A model's suggestions on the annotator's page (decision 0078): dashed boxes on the image with their
// type, score and attributes, a list beside it, and keys to go through them.
//
// Accepting is saving: the suggestion becomes an ordinary box of the annotation (selected, ready to be
// edited) that names the suggestion, and the page saves; the server stores the link, marks the
// suggestion accepted and works out whether the box was edited. Rejecting is its own request. What a
// suggestion is on this page follows the page's boxes: one a box names is accepted (saved or not), one
// whose box was deleted since the last save is rejected by that save. Both decisions are steps of the
// page's undo: taken back, the suggestion waits again, on the page and on the server.
//
// The suggestions are asked for once the page is up, so they never delay it; the model server is asked
// ahead for the next image's by the server (annotations.services.queues) when the annotator takes an
// image, so "Annotate next" does not wait for it either.

import { api } from "./api.js";
import { nameWidth } from "./canvas.js";
import { NAME_PX, placeLabels } from "./labels.js";
import { make, setRect } from "./svg.js";

const el = (tag, attributes = {}, ...children) => {
  const element = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k === "text") element.textContent = v;
    else element.setAttribute(k, v);
  }
  element.append(...children);
  return element;
};

const percent = (score) => (score == null ? "" : `${Math.round(score * 100)}%`);

// "person 92% · walking, adult": what a suggestion's dashed box says on the image; `short`, without
// the attributes.
export function suggestionText(s, short = false) {
  const head = [s.type, percent(s.score)].filter(Boolean).join(" ");
  return s.attributes.length && !short ? `${head} · ${s.attributes.join(", ")}` : head;
}

export class Suggestions {
  // session: the page's EditSession; urls: {list, reject, restore} ({id} in the last two).
  constructor(session, urls) {
    this.session = session;
    this.view = session.view;
    this.store = session.store;
    this.urls = urls;
    this.items = []; // as the server sent them, pending first and best first
    this.state = "loading";
    this.picked = null; // the suggestion J / K went to, which Y accepts and X rejects
    this.sending = Promise.resolve(); // the decisions sent, one after the other (Z right after X)
    const root = document.querySelector("[data-role=suggestions]");
    this.ui = {
      root,
      source: root.querySelector("[data-role=suggestion-source]"),
      note: root.querySelector("[data-role=suggestion-note]"),
      body: root.querySelector("[data-role=suggestion-body]"),
      list: root.querySelector("[data-role=suggestion-list]"),
      decided: root.querySelector("[data-role=suggestion-decided]"),
      threshold: root.querySelector("[data-role=threshold]"),
      aboveCount: root.querySelector("[data-role=above-count]"),
    };
    // Over the boxes, under the names, never in the pointer's way: a drag over a suggestion draws.
    this.group = make("g", { class: "suggestions", "data-testid": "suggestion-boxes" });
    this.view.layer.svg.insertBefore(this.group, this.view.layer.decorations);
    session.onDecorated = () => this.draw();
    session.onUndone = (step) => this.undone(step);
    this.store.addEventListener("change", (e) => {
      if (!["box", "attributes", "relationships"].includes(e.detail.kind)) this.render();
    });
    root.addEventListener("click", (e) => this._clicked(e));
    this.ui.threshold.addEventListener("input", () => this._countAbove());
    // Enter in the score field accepts from it (Shift+Y there would type a Y).
    this.ui.threshold.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        this.acceptAbove();
      }
    });
  }

  // --- loading ---

  async load() {
    let answer;
    try {
      answer = await api("GET", this.urls.list);
    } catch (error) {
      answer = { state: "unavailable", note: error.message, model_version: "", suggestions: [] };
    }
    this.state = answer.state;
    this.items = answer.suggestions;
    this.ui.root.hidden = this.state === "off";
    this.ui.note.hidden = this.state !== "unavailable";
    this.ui.note.textContent = `Suggestions unavailable: ${answer.note || "the model server did not answer."}`;
    this.ui.body.hidden = this.state !== "ready";
    this.ui.source.textContent = answer.model_version ? `from model ${answer.model_version}` : "";
    this.picked = this.pending()[0]?.id ?? null;
    this.render();
    document.body.dataset.suggestions = this.state; // for the browser tests
  }

  // Submitted: nothing is decided here any more; the waiting suggestions leave the image and the panel.
  finish() {
    this.state = "finished";
    this.ui.root.hidden = true;
    this.draw();
  }

  // --- what each suggestion is on this page ---

  status(s) {
    if (this.store.suggestionIds().has(s.id)) return "accepted";
    // Accepted by a save, its box deleted since: the next save rejects it (the person removed it).
    if (s.status === "accepted") return "removed";
    return s.status;
  }

  pending() {
    if (this.state !== "ready") return [];
    const named = this.store.suggestionIds();
    return this.items.filter((s) => s.status === "pending" && !named.has(s.id));
  }

  // After a save: what the server did to the statuses, without asking it again.
  saved(record) {
    const named = new Set(record.objects.map((o) => o.suggestion?.id).filter(Boolean));
    for (const s of this.items) {
      if (named.has(s.id)) s.status = "accepted";
      else if (s.status === "accepted") s.status = "rejected";
    }
    this.render();
  }

  // --- the keys and buttons ---

  // J / K: the next or previous pending suggestion, wrapping around.
  step(delta) {
    const pending = this.pending();
    if (!pending.length) return;
    const at = pending.findIndex((s) => s.id === this.picked);
    const next = at < 0 ? (delta > 0 ? 0 : pending.length - 1) : (at + delta + pending.length) % pending.length;
    this.picked = pending[next].id;
    this.render();
  }

  // Y: the picked suggestion becomes a box (selected, to be edited) and the page saves.
  acceptPicked() {
    if (this.state !== "ready") return; // off, or unavailable: the note says so already
    return this.picked == null ? this._say("No suggestion is waiting: J / K go through them.") : this.accept([this.picked]);
  }

  // Shift+Y or the button: every pending suggestion from the threshold's score up, in one save.
  acceptAbove() {
    const threshold = Number(this.ui.threshold.value);
    const chosen = this.pending().filter((s) => s.score != null && s.score >= threshold);
    if (!chosen.length) return this._say(`No waiting suggestion scores ${percent(threshold)} or more.`);
    return this.accept(chosen.map((s) => s.id));
  }

  accept(ids) {
    if (this.session.finished) return;
    const waiting = new Set(this.pending().map((s) => s.id));
    const chosen = this.items.filter((s) => ids.includes(s.id) && waiting.has(s.id));
    if (!chosen.length) return;
    const next = this._after(chosen.map((s) => s.id));
    const keys = this.store.addMany(
      chosen.map((s) => ({ type: s.type, bbox: [...s.bbox], attributes: s.attributes, suggestion: s.id })),
      { accepted: chosen.map((s) => s.id) },
    );
    this.picked = next;
    this.view.select(keys[keys.length - 1]);
    this.render();
    this._say(chosen.length > 1 ? `Accepted ${chosen.length} suggestions.` : "");
    return this.session.save();
  }

  // X: rejected at once on the page; the server is told, and a refusal puts it back.
  async reject(id = this.picked) {
    const s = this.items.find((item) => item.id === id);
    if (!s || this.session.finished || this.status(s) !== "pending") return;
    this.picked = this._after([id]);
    this.store.remember({ rejected: id });
    await this._decide(s, "rejected", this.urls.reject, "Not rejected");
  }

  async restore(id) {
    const s = this.items.find((item) => item.id === id);
    if (!s || this.session.finished || s.status !== "rejected") return;
    await this._decide(s, "pending", this.urls.restore, "Not taken back");
    this.picked = this.picked ?? s.id;
    this.render();
  }

  // Z after X, or after Y: the suggestions wait again and are picked. Taking back an acceptance first
  // saves the annotation without the boxes the undo took away, which files their suggestions rejected
  // (as deleting a box does), and then takes the rejection back.
  async undone(step) {
    const ids = step.rejected ? [step.rejected] : step.accepted;
    if (!ids) return;
    if (step.accepted) {
      await this.session.saving; // Y's own save, if it is still on its way
      if (!(await this.session.save())) return;
    }
    await Promise.all(ids.map((id) => this.restore(id)));
    this.picked = ids.find((id) => this.pending().some((s) => s.id === id)) ?? this.picked;
    this.render();
  }

  async _decide(s, status, url, failure) {
    const before = s.status;
    s.status = status;
    this.render();
    // In the order made: a take-back must not reach the server before the rejection it takes back.
    const sent = this.sending.then(() => api("POST", url.replace("{id}", s.id)));
    this.sending = sent.catch(() => {});
    try {
      s.status = (await sent).status;
    } catch (error) {
      s.status = before;
      this.session.showError(`${failure}: ${error.message}`);
    }
    this.render();
  }

  // The pending suggestion after these in the list (wrapping), or null once none is left.
  _after(ids) {
    const pending = this.pending();
    const at = pending.findIndex((s) => ids.includes(s.id));
    const rest = [...pending.slice(at + 1), ...pending.slice(0, Math.max(at, 0))].filter((s) => !ids.includes(s.id));
    return rest[0]?.id ?? null;
  }

  _clicked(e) {
    const item = e.target.closest("[data-suggestion]");
    const id = item ? Number(item.dataset.suggestion) : null;
    const act = e.target.closest("[data-act]")?.dataset.act;
    if (e.target.closest("[data-action=accept-above]")) return this.acceptAbove();
    if (id == null) return;
    if (act === "accept") return this.accept([id]);
    if (act === "reject") return this.reject(id);
    if (act === "restore") return this.restore(id);
    if (this.pending().some((s) => s.id === id)) {
      this.picked = id;
      this.render();
    }
  }

  _say(text) {
    this.session.notify(text);
  }

  // --- drawing ---

  render() {
    if (this.state !== "ready") return this.draw();
    const pending = this.pending();
    if (!pending.some((s) => s.id === this.picked)) this.picked = pending[0]?.id ?? null;
    this.ui.list.replaceChildren(...pending.map((s) => this._item(s)));
    if (!pending.length) this.ui.list.append(el("li", { class: "muted", text: "No suggestion is waiting." }));
    const decided = this.items.filter((s) => ["rejected", "removed"].includes(this.status(s)));
    this.ui.decided.hidden = !decided.length;
    this.ui.decided.querySelector("[data-role=rejected-count]").textContent = decided.length;
    this.ui.decided.querySelector("ul").replaceChildren(...decided.map((s) => this._decidedItem(s)));
    this.ui.root.querySelector("[data-role=pending-count]").textContent = pending.length;
    this._countAbove();
    this.draw();
  }

  _item(s) {
    const picked = s.id === this.picked;
    const item = el(
      "li",
      { "data-suggestion": s.id, class: picked ? "picked" : "", "aria-current": picked ? "true" : "false" },
      el("span", { class: "name", text: `${s.type} ${percent(s.score)}` }),
      " ",
      el("span", { class: "summary", text: s.attributes.join(", ") || "no attributes" }),
      " ",
      el("button", { type: "button", class: "link", "data-act": "accept", text: "accept", title: "Accept (Y)" }),
      " ",
      el("button", { type: "button", class: "link", "data-act": "reject", text: "reject", title: "Reject (X)" }),
    );
    return item;
  }

  _decidedItem(s) {
    const removed = this.status(s) === "removed";
    const item = el("li", { "data-suggestion": s.id }, `${s.type} ${percent(s.score)} `);
    if (removed) item.append(el("span", { class: "muted", text: "(its box deleted: rejected when saved)" }));
    else item.append(el("button", { type: "button", class: "link", "data-act": "restore", text: "take back" }));
    return item;
  }

  _countAbove() {
    const threshold = Number(this.ui.threshold.value);
    this.ui.aboveCount.textContent = this.pending().filter((s) => s.score != null && s.score >= threshold).length;
  }

  // The dashed boxes and their names at one size on screen, placed as the boxes' names are (labels.js):
  // a name with no free place is left out until a zoom makes room, except the picked one's. While the
  // image is shown smaller than its pixels (a phone), only the picked one's name says its attributes:
  // the others' would crowd each other out (the list beside says them all).
  draw() {
    const pending = this.pending();
    const layer = this.view.layer;
    const scale = layer.scale;
    const text = (s) => {
      const full = suggestionText(s);
      const short = scale < 1 && s.id !== this.picked;
      // The picked name is always drawn, so it must fit across the image.
      return short || nameWidth(full) > layer.width * scale ? suggestionText(s, true) : full;
    };
    const texts = new Map(pending.map((s) => [s.id, text(s)]));
    const ordered = [...pending].sort((a, b) => (b.id === this.picked) - (a.id === this.picked));
    const placed = placeLabels(
      ordered.map((s) => ({ key: s.id, bbox: s.bbox, width: nameWidth(texts.get(s.id)) })),
      [],
      { scale, width: layer.width, height: layer.height, selected: this.picked },
    );
    const fragment = document.createDocumentFragment();
    for (const s of pending) {
      const picked = s.id === this.picked ? " picked" : "";
      const rect = make("rect", { class: `suggestion ${layer.typeClass(s.type)}${picked}`, "data-suggestion": s.id });
      setRect(rect, s.bbox);
      fragment.append(rect);
    }
    for (const s of ordered) {
      const at = placed.names.get(s.id);
      if (!at) continue;
      // The picked name is placed above its box whatever is there; kept inside the image's right edge.
      if (s.id === this.picked) at[0] = Math.max(0, Math.min(at[0], layer.width - nameWidth(texts.get(s.id)) / scale));
      const picked = s.id === this.picked ? " picked" : "";
      const text = make("text", { class: `suggestion-label${picked}`, x: at[0], y: at[1], "data-suggestion": s.id });
      text.textContent = texts.get(s.id);
      fragment.append(text);
    }
    this.group.replaceChildren(fragment);
    this.group.setAttribute("font-size", NAME_PX / scale);
  }
}
