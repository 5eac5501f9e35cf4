// The progress of an import: the job runs in a Celery worker, so the page asks the API for it until it
// is done or failed, then lists every bad record with its line number, or its place in the file, which
// starts the message (nothing is imported then), and what the mapping did. An import that would replace
// existing annotations stops "previewed": the page shows its plan, with the buttons (plain forms, in
// the template) to go on, keeping or replacing the accepted images, or to cancel (decision 0071).

import { api } from "./api.js";

const root = document.getElementById("import-job");
const part = (role) => root.querySelector(`[data-role=${role}]`);
const FIRST_DELAY = 500;
const MAX_DELAY = 5000;
// Statuses in which the job waits for nothing but a person.
const SETTLED = new Set(["done", "failed", "cancelled", "previewed"]);
const plural = (n, word) => `${n.toLocaleString()} ${word}${n === 1 ? "" : "s"}`;

function resultText(job) {
  if (job.status === "done") return doneText(job);
  if (job.status === "failed") return job.message || `Nothing was imported: ${plural(job.errors.length, "problem")}.`;
  if (job.status === "cancelled") return job.message;
  return "";
}

function render(job) {
  part("status").textContent = job.status;
  part("counts").textContent = `${job.lines_done} of ${job.lines_total} records checked`;
  const bar = part("bar");
  bar.max = Math.max(job.lines_total, 1);
  bar.value = job.lines_done;
  // A queued import says what it waits for (the task queue was unreachable when it was created).
  part("waiting").textContent = job.status === "queued" ? job.message : "";
  const result = part("result");
  result.className = job.status === "failed" ? "error" : job.status === "done" ? "success" : "";
  result.textContent = resultText(job);
  renderPlan(job);
  // Errors arrive all at once, when validation ends: one fragment, however many there are.
  const fragment = document.createDocumentFragment();
  for (const error of job.errors) {
    const item = document.createElement("li");
    item.dataset.line = error.line ?? "";
    item.textContent = error.line == null ? error.message : `line ${error.line}: ${error.message}`;
    fragment.append(item);
  }
  part("errors").replaceChildren(fragment);
  renderReport(job.report || []);
}

// What the mapping mapped, merged and dropped (formats with an open vocabulary): a row per section.
const SHOWN = 8;
function renderReport(report) {
  const table = part("report");
  const rows = document.createDocumentFragment();
  for (const counts of report) {
    const row = document.createElement("tr");
    const names = counts.top.slice(0, SHOWN).map(([name, count]) => `${name} (${count})`);
    if (counts.others) names.push(`others (${counts.others})`);
    for (const text of [counts.section, String(counts.total), names.join(", ")]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    rows.append(row);
  }
  table.tBodies[0].replaceChildren(rows);
  table.hidden = report.length === 0;
}

// What a previewed import would do, and which choice its buttons offer.
function renderPlan(job) {
  const plan = job.plan;
  part("plan").hidden = job.status !== "previewed" || !plan;
  if (part("plan").hidden) return;
  part("plan-message").textContent = job.message;
  for (const key of ["created", "changed", "unannotated", "accepted", "unchanged"]) {
    part(`plan-${key}`).textContent = String(plan[key]);
  }
  const more = plan.accepted - plan.accepted_names.length;
  part("plan-accepted-names").hidden = plan.accepted === 0;
  part("plan-accepted-names").textContent =
    `Accepted images it would change: ${plan.accepted_names.join(", ")}${more > 0 ? ` and ${more} more` : ""}.`;
  part("keep").textContent = plan.accepted ? "Go on, keep the accepted images as they are" : "Go on";
  part("replace").hidden = plan.accepted === 0;
}

async function poll(delay) {
  try {
    const job = await api("GET", root.dataset.api);
    render(job);
    if (SETTLED.has(job.status)) {
      root.dataset.finished = "true";
      return;
    }
    setTimeout(() => poll(FIRST_DELAY), FIRST_DELAY);
  } catch (error) {
    // A lost connection or a restarting server: say so, and try again, less and less often.
    part("result").textContent = `Cannot reach the server (${error.message}); trying again.`;
    setTimeout(() => poll(Math.min(delay * 2, MAX_DELAY)), delay);
  }
}

if (root.dataset.finished !== "true") poll(FIRST_DELAY);

// What a finished import did: the images (created, changed, unchanged, accepted ones kept), the entries
// it refused (listed below), the pixels it attached.
function doneText(job) {
  let text = `Imported: ${plural(job.images_created, "image")} created, ${job.images_updated.toLocaleString()} changed, ${job.images_unchanged.toLocaleString()} unchanged`;
  if (job.images_kept) {
    text += `; ${plural(job.images_kept, "accepted image")} kept as ${job.images_kept === 1 ? "it was" : "they were"}`;
  }
  text += ".";
  if (job.entries_refused) text += ` ${plural(job.entries_refused, "entry")} refused (listed below).`.replace("entrys", "entries");
  if (job.pixels_attached) text += ` ${plural(job.pixels_attached, "image")} given their pixels.`;
  return text;
}
