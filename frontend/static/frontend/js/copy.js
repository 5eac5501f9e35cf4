// "Copy" buttons: each copies the text of the [data-copy-source] in its section (a client snippet, a
// new token's secret) and says so beside it. The clipboard API needs a secure context (HTTPS or this
// machine); elsewhere the text is selected for the user to copy.

for (const button of document.querySelectorAll("[data-copy]")) {
  const section = button.closest("section, p, div");
  const source = section.querySelector("[data-copy-source]");
  const state = section.querySelector("[data-copy-state]");
  button.addEventListener("click", async () => {
    const text = source.innerText;
    try {
      await navigator.clipboard.writeText(text);
      if (state) state.textContent = "Copied.";
    } catch {
      window.getSelection().selectAllChildren(source);
      if (state) state.textContent = "Selected: press Ctrl+C to copy.";
    }
  });
}
