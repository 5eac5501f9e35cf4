// Shows how long the user still holds the image. The server renews the lease on every save; an
// expired lease still lets the holder save until someone else takes the image, and the text says so.

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });

export class LeaseClock {
  constructor(element) {
    this.element = element;
    this.expires = null;
    // Minutes are all it shows, so twice a minute is often enough.
    setInterval(() => this.render(), 30_000);
  }

  set(isoString) {
    this.expires = isoString ? new Date(isoString) : null;
    this.render();
  }

  render() {
    if (!this.element) return;
    if (!this.expires) {
      this.element.textContent = "";
      return;
    }
    const minutes = Math.round((this.expires - Date.now()) / 60_000);
    const at = timeFormat.format(this.expires);
    const expired = minutes <= 0;
    this.element.classList.toggle("warn", minutes <= 5);
    this.element.textContent = expired
      ? `Your lease expired at ${at}: saving still works unless someone else has taken the image.`
      : `Yours until ${at} (${minutes} min left; saving renews it).`;
  }
}
