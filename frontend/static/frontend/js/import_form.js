// A large import file takes a while to reach the server, and a plain form post shows nothing meanwhile.
// So the page sends the form itself: a bar shows the bytes sent, then the page goes where the server
// says (the job's page, which follows the job's own progress; or back here with the form's errors).

const form = document.getElementById("import-form");
const box = document.querySelector("#import [data-role=upload-progress]");
const bar = box.querySelector("progress");
const text = box.querySelector("[data-role=upload-text]");
const button = form.querySelector("button[type=submit]");

const units = ["bytes", "KB", "MB", "GB"];
function size(bytes) {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit ? `${value.toFixed(1)} ${units[unit]}` : `${value} bytes`;
}

function show(sent, total) {
  box.hidden = false;
  bar.max = total || 1;
  bar.value = sent;
  text.textContent = total ? `Sending the file: ${size(sent)} of ${size(total)} sent.` : `Sending the file: ${size(sent)} sent.`;
}

function failed(message) {
  text.textContent = message;
  box.classList.add("error-text");
  button.disabled = false;
}

// Back to this very page (the form's errors): changing only the fragment would not load it again.
function go(location) {
  const target = new URL(location, window.location.href);
  const here = window.location;
  if (target.pathname !== here.pathname || target.search !== here.search) return window.location.assign(target);
  here.hash = target.hash;
  here.reload();
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const body = new FormData(form);
  const file = body.get("file");
  const request = new XMLHttpRequest();
  request.open("POST", form.action);
  request.setRequestHeader("X-Requested-With", "XMLHttpRequest");
  request.responseType = "json";
  request.upload.addEventListener("progress", (e) => show(e.loaded, e.lengthComputable ? e.total : 0));
  request.upload.addEventListener("load", () => {
    bar.value = bar.max;
    text.textContent = "File sent; the server is starting the import…";
  });
  request.addEventListener("load", () => {
    const location = request.response?.location;
    if (request.status === 200 && location) go(location);
    else failed(request.response?.message || `The server refused the file (HTTP ${request.status}).`);
  });
  request.addEventListener("error", () => failed("The server cannot be reached; nothing was imported. Try again."));
  box.classList.remove("error-text");
  button.disabled = true;
  show(0, file?.size || 0);
  request.send(body);
});
