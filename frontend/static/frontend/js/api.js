// Calls to the platform's REST API from the pages, with the session cookie of the logged-in user.
// DRF's SessionAuthentication insists on the CSRF token for every unsafe method; the base template
// puts it in <meta name="csrf-token">. Every failure is turned into an ApiError carrying the API's one
// error shape {code, message, fields}, so callers can show the message next to what it names.

const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content ?? "";

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `The server answered with HTTP ${status}.`);
    this.status = status;
    this.code = body?.code || `http_${status}`;
    this.fields = body?.fields || {};
  }
}

export async function api(method, url, body) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRFToken"] = csrfToken();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, {
      code: "network",
      message: "The server cannot be reached. Nothing was lost here: try again in a moment.",
    });
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null; // an HTML error page from a proxy: the status says enough
  }
  if (!response.ok) {
    if (response.status === 401) {
      // The session ended (logged out in another tab, or expired): say how to keep the work.
      data = { code: "not_authenticated", message: "You are logged out. Log in again in another tab, then retry: your changes are still here." };
    }
    throw new ApiError(response.status, data);
  }
  return data;
}
