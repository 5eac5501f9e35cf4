// The upload form: Django refuses a request with more files than DATA_UPLOAD_MAX_NUMBER_FILES before
// any view runs (a bare "400 Bad Request"), so the page counts the chosen files first and says what to do.

const form = document.getElementById("upload-form");
const error = form.querySelector("[data-role=upload-error]");
const input = form.querySelector("input[type=file]");
const limit = Number(form.dataset.maxFiles);

function check() {
  const count = input.files.length;
  const tooMany = count > limit;
  error.textContent = tooMany ? `${count} files chosen; at most ${limit} per upload. Put them in a zip archive.` : "";
  return !tooMany;
}

input.addEventListener("change", check);
form.addEventListener("submit", (e) => {
  if (!check()) e.preventDefault();
});
