// The reviewer's page, and the read-only view of an image for any member: the annotation as the
// annotator left it (boxes on the image, every box's attributes, every relationship), and for the
// reviewer holding the image, Accept or Send back with a comment saying what to fix.

import { api } from "./api.js";
import { LeaseClock } from "./lease.js";
import { SceneView, readPageData } from "./scene_view.js";
import { installShortcuts } from "./shortcuts.js";

const data = readPageData();
const $ = (selector) => document.querySelector(selector);
const view = new SceneView(data, { editable: false });
// The reviewer cannot save, so nothing renews the lease from this page.
const lease = new LeaseClock($("[data-role=lease]"), { renews: false });
lease.set(data.mode === "review" ? data.image.lease_expires_at : null);
const stageBadge = $("[data-role=stage]");

const decision = $("[data-role=decision]");
const comment = $("[data-role=comment]");
const commentError = $("[data-error=comment]");
const errorBar = $("[data-role=error]");
let deciding = false;

function showError(text) {
  errorBar.textContent = text;
  errorBar.hidden = !text;
}

async function decide(choice) {
  if (deciding) return;
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
    await api("POST", data.urls.review, { decision: choice, comment: text });
    decision.hidden = true;
    lease.end("Decided: the image is no longer yours.");
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
  try {
    await api("DELETE", data.urls.lease);
    window.location.assign(data.urls.collection);
  } catch (error) {
    showError(`Not released: ${error.message}`);
  }
}

if (decision && data.mode === "review") {
  decision.addEventListener("click", (e) => {
    const action = e.target.closest("[data-action]")?.dataset.action;
    if (action === "accept") decide("accept");
    if (action === "send-back") decide("send_back");
    if (action === "release") release();
  });
}

installShortcuts([
  { keys: ["n", "]"], run: () => view.step(1) },
  { keys: ["p", "["], run: () => view.step(-1) },
  { keys: ["Escape"], always: true, run: () => view.select(null) },
]);

document.body.dataset.ready = "true";
performance.mark("vtt:ready");
