// The progress of an import: the job runs in a Celery worker, so the page asks the API for it until it
// is done or failed, then lists every bad record with its line number, or for COCO its place in the
// document, which starts the message (nothing is imported then).

import { api } from "./api.js";

const root = document.getElementById("import-job");
const part = (role) => root.querySelector(`[data-role=${role}]`);
const FIRST_DELAY = 500;
const MAX_DELAY = 5000;

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
  if (job.status === "done") {
    result.textContent = `Imported: ${job.images_created} image${job.images_created === 1 ? "" : "s"} created, ${job.images_updated} updated.`;
  } else if (job.status === "failed") {
    result.textContent = `Nothing was imported: ${job.errors.length} problem${job.errors.length === 1 ? "" : "s"}.`;
  }
  // Errors arrive all at once, when validation ends: one fragment, however many there are.
  const fragment = document.createDocumentFragment();
  for (const error of job.errors) {
    const item = document.createElement("li");
    item.dataset.line = error.line ?? "";
    item.textContent = error.line == null ? error.message : `line ${error.line}: ${error.message}`;
    fragment.append(item);
  }
  part("errors").replaceChildren(fragment);
}

async function poll(delay) {
  try {
    const job = await api("GET", root.dataset.api);
    render(job);
    if (job.status === "done" || job.status === "failed") {
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
