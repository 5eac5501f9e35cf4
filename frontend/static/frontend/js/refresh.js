// A page that shows a running job (automatic truthing, an audit, a fit, an import in the admin) reloads
// itself every few seconds until the job ends: the server leaves the marker out once nothing runs, and
// the reloading stops. Loaded as a module by the site's pages and as a classic script by the admin's.
function follow() {
  const marker = document.querySelector("[data-refresh-seconds]");
  if (marker) {
    const seconds = Number(marker.dataset.refreshSeconds) || 3;
    window.setTimeout(() => window.location.reload(), seconds * 1000);
  }
}
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", follow);
} else {
  follow();
}
