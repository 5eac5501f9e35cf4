// The reviewer's page, and the read-only view of an image for any member: the annotation as the
// annotator left it (boxes and names on the image, every box's attributes, every relationship). The
// reviewer holding the image may correct it (edit_session.js: the same editing as the annotator's,
// saved through the reviewer's own operation and recorded as theirs), then Accept (A) or Send back (B)
// with a comment saying what to fix, pinned to one box or to the whole image.

import { api } from "./api.js";
import { EditSession } from "./edit_session.js";
import { LeaseClock } from "./lease.js";
import { SceneView, readPageData } from "./scene_view.js";
import { foldKeyTable, installShortcuts } from "./shortcuts.js";

const data = readPageData();
const $ = (selector) => document.querySelector(selector);
const reviewing = data.mode === "review";
const lease = new LeaseClock($("[data-role=lease]"), { renews: reviewing });
lease.set(reviewing ? data.image.lease_expires_at : null);
const session = reviewing ? new EditSession(data, { onSaved: (record) => lease.set(record.lease_expires_at) }) : null;
const view = session ? session.view : new SceneView(data, { editable: false });
const stageBadge = $("[data-role=stage]");

const decision = $("[data-role=decision]");
const comment = $("[data-role=comment]");
const about = $("[data-role=comment-object]");
const commentError = $("[data-error=comment]");
const errorBar = $("[data-role=error]");
let deciding = false;

function showError(text) {
  errorBar.textContent = text;
  errorBar.hidden = !text;
}

// The boxes a comment may be pinned to, by their names; the choice survives a relabelling.
function fillAbout() {
  const chosen = about.value;
  const options = [new Option("the whole image", "")];
  for (const key of view.store.order) options.push(new Option(view.labels.get(key), key));
  about.replaceChildren(...options);
  about.value = view.store.get(chosen) ? chosen : "";
}

async function decide(choice) {
  if (deciding || session.finished) return;
  const text = comment.value.trim();
  commentError.textContent = "";
  if (choice === "send_back" && !text) {
    // The server refuses it too; saying so here saves a round trip.
    commentError.textContent = "Say what the annotator should fix: sending back needs a comment.";
    comment.focus();
    return;
  }
  deciding = true;
  decision.querySelectorAll("button").forEach((b) => (b.disabled = true));
  try {
    // Corrections not saved yet are saved first: the decision is about what the page shows.
    if (session.store.dirty && !(await session.save())) throw new Error("Your corrections were not saved; see above.");
    // The server names boxes o1..oN by their order, which a save has made the page's order too.
    const pinned = text && about.value ? `o${view.store.order.indexOf(about.value) + 1}` : "";
    await api("POST", data.urls.review, { decision: choice, comment: text, object: pinned });
    decision.hidden = true;
    lease.end("Decided: the image is no longer yours.");
    session.finish(choice === "accept" ? "Accepted: read-only." : "Sent back: read-only.");
    document.querySelectorAll("[data-role=toolbar] button").forEach((b) => (b.disabled = true));
    // The badge follows the image: accepted, or back in annotation.
    const [stage, label] = choice === "accept" ? ["accepted", "accepted"] : ["annotate", "in annotation"];
    stageBadge.className = `tag stage-${stage}`;
    stageBadge.textContent = label;
    const done = $("[data-role=done]");
    done.querySelector("[data-role=done-message]").textContent =
      choice === "accept" ? "Accepted: the image joins the collection's accepted images." : "Sent back to its annotator with your comment.";
    done.hidden = false;
    done.querySelector("button")?.focus();
  } catch (error) {
    if (error.fields?.comment) commentError.textContent = [error.fields.comment].flat().join(" ");
    showError(`Not recorded: ${error.message}`);
    decision.querySelectorAll("button").forEach((b) => (b.disabled = false));
  } finally {
    deciding = false;
  }
}

async function release() {
  if (session.store.dirty && !window.confirm("Give the image back without saving your corrections?")) return;
  try {
    await api("DELETE", data.urls.lease);
    session.finished = true;
    window.location.assign(data.urls.collection);
  } catch (error) {
    showError(`Not released: ${error.message}`);
  }
}

if (reviewing) {
  fillAbout();
  view.store.addEventListener("change", (e) => {
    if (!["box", "attributes"].includes(e.detail.kind)) fillAbout();
  });
  // The complaint that a comment is missing goes as soon as there is one (the server's too).
  comment.addEventListener("input", () => {
    if (comment.value.trim()) commentError.textContent = "";
  });
  decision.addEventListener("click", (e) => {
    const action = e.target.closest("[data-action]")?.dataset.action;
    if (action === "accept") decide("accept");
    if (action === "send-back") decide("send_back");
    if (action === "release") release();
  });
  foldKeyTable();
  installShortcuts(
    session.shortcuts([
      { keys: ["a"], run: () => decide("accept") },
      { keys: ["b"], run: () => decide("send_back") },
      { keys: ["Enter"], ctrl: true, always: true, run: (e) => (e.target === comment ? decide("send_back") : false) },
    ]),
  );
} else {
  installShortcuts([
    { keys: ["n", "]"], run: () => view.step(1) },
    { keys: ["p", "["], run: () => view.step(-1) },
    { keys: ["t"], run: () => view.toggleLabels() },
    ...view.zoomShortcuts(),
    ...view.arrowShortcuts((e, dx, dy) => view.panByKey(e, dx, dy)),
    { keys: ["Escape"], always: true, run: () => view.select(null) },
  ]);
}

document.body.dataset.ready = "true";
performance.mark("vtt:ready");
