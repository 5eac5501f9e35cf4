// The annotator's page: the editing of edit_session.js, then submit for review or release the image.

import { api } from "./api.js";
import { EditSession } from "./edit_session.js";
import { LeaseClock } from "./lease.js";
import { readPageData } from "./scene_view.js";
import { foldKeyTable, installShortcuts } from "./shortcuts.js";
import { Suggestions } from "./suggestions.js";

const data = readPageData();
const $ = (selector) => document.querySelector(selector);
const lease = new LeaseClock($("[data-role=lease]"));
lease.set(data.image.lease_expires_at);
// Every save renews the lease, and says what became of the model's suggestions.
const session = new EditSession(data, {
  onSaved: (record) => {
    lease.set(record.lease_expires_at);
    suggestions.saved(record);
  },
});
const { store } = session;
const suggestions = new Suggestions(session, data.urls.suggestions);
const ui = {
  submit: $("[data-action=submit]"),
  release: $("[data-action=release]"),
  done: $("[data-role=done]"),
};

async function submit() {
  if (session.finished || session.saving) return;
  session.link.close();
  if (store.dirty && !(await session.save())) return;
  ui.submit.disabled = true;
  try {
    await api("POST", data.urls.submit);
    lease.end("Submitted: the image is no longer yours.");
    finish(data.urls.submitted_message || "Submitted for review.");
  } catch (error) {
    // Boxes lacking attributes are listed beside the image; any other refusal is one line.
    if (!(error.code === "incomplete_attributes" && session.showGaps(error))) {
      session.showError(`Not submitted: ${error.message}`);
    }
    ui.submit.disabled = false;
  }
}

async function release() {
  if (session.finished) return;
  if (store.dirty && !window.confirm("Give the image back without saving? Your unsaved changes will be lost.")) return;
  try {
    await api("DELETE", data.urls.lease);
    session.finished = true;
    window.location.assign(data.urls.collection);
  } catch (error) {
    session.showError(`Not released: ${error.message}`);
  }
}

function finish(message) {
  session.finish("Submitted: read-only. The reviewer takes it from here.");
  suggestions.finish();
  document.querySelectorAll("[data-role=toolbar] button:not([data-action=labels])").forEach((b) => (b.disabled = true));
  ui.done.querySelector("[data-role=done-message]").textContent = message;
  ui.done.hidden = false;
  ui.done.querySelector("button")?.focus();
}

ui.submit.addEventListener("click", () => submit());
ui.release.addEventListener("click", () => release());
const editing = (run) => (e) => (session.finished ? false : run(e));
foldKeyTable();
installShortcuts(
  session.shortcuts([
    { keys: ["Enter"], ctrl: true, always: true, run: () => submit() },
    // A model's suggestions: letters no other key of the page uses.
    { keys: ["j"], run: () => suggestions.step(1) },
    { keys: ["k"], run: () => suggestions.step(-1) },
    { keys: ["y"], run: editing((e) => (e.shiftKey ? suggestions.acceptAbove() : suggestions.acceptPicked())) },
    { keys: ["x"], run: editing(() => suggestions.reject()) },
  ]),
);

document.body.dataset.ready = "true"; // for the browser tests and the benchmark
performance.mark("vtt:ready");
// The suggestions come after the page is up and painted: they never delay it. A crowd's work has none
// (its page data carries no suggestions' addresses: they would name the image).
if (data.urls.suggestions) requestAnimationFrame(() => setTimeout(() => suggestions.load()));
