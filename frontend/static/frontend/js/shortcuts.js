// One keydown listener for the page. A key typed into a text field, a number field or a list belongs
// to that field; only Escape and the combinations no field uses (Ctrl+S, Ctrl+Enter) act from there.
// Arrow keys also belong to radio buttons, which move between values with them.

const TYPING = "textarea, select, [contenteditable], input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit])";

// A binding with `once` acts on the first keydown of a press only: a held key's auto-repeat does
// nothing (an operator's held Y must not answer question after question), but it is still swallowed so
// that it does not scroll the page.

// The table of keys (_shortcuts.html) is folded away on a narrow screen, as site.css's layout for a
// phone starts: a phone has no keys, and the table would take its screen. A tap on its title opens it.
export function foldKeyTable() {
  const table = document.querySelector("details.shortcuts");
  if (table && window.matchMedia("(max-width: 760px)").matches) table.open = false;
}

// binding: {keys: ["d"], ctrl: false, run(event), always: false (also from fields), arrows: false, once: false}
export function installShortcuts(bindings) {
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.altKey || e.isComposing) return;
    const ctrl = e.ctrlKey || e.metaKey;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const binding = bindings.find((b) => b.keys.includes(key) && Boolean(b.ctrl) === ctrl);
    if (!binding) return;
    const target = e.target instanceof Element ? e.target : null;
    if (!binding.always && target?.closest(TYPING)) return;
    if (binding.arrows && target?.matches("input[type=radio]")) return;
    if (binding.once && e.repeat) {
      e.preventDefault();
      return;
    }
    if (binding.run(e) !== false) e.preventDefault();
  });
}
