// A page that shows a running job (automatic truthing, an audit) reloads itself every few seconds until
// the job ends: the server leaves this marker out once nothing runs, and the reload stops.
const marker = document.querySelector("[data-refresh-seconds]");
if (marker) {
  const seconds = Number(marker.dataset.refreshSeconds) || 3;
  window.setTimeout(() => window.location.reload(), seconds * 1000);
}
