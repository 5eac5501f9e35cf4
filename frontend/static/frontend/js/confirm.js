// Forms that do something that cannot be undone (revoking a token) ask first: the question is the
// form's data-confirm. Without the script the form still works, unasked.

document.addEventListener("submit", (event) => {
  const question = event.target.dataset?.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});
