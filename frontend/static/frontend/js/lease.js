// Shows how long the user still holds the image. On the annotator's page the server renews the lease on
// every save; the reviewer cannot save, so their line says nothing about renewing. An expired lease
// still lets the holder work until someone else takes the image, and the text says so. Once the image
// is submitted, decided or released, `end(text)` says it is no longer the user's.

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });

export class LeaseClock {
  // renews: whether saving renews the lease (the annotator's page).
  constructor(element, { renews = true } = {}) {
    this.element = element;
    this.renews = renews;
    this.expires = null;
    this.ended = null;
    // Minutes are all it shows, so twice a minute is often enough.
    setInterval(() => this.render(), 30_000);
  }

  set(isoString) {
    this.expires = isoString ? new Date(isoString) : null;
    this.render();
  }

  end(text) {
    this.expires = null;
    this.ended = text;
    this.render();
  }

  render() {
    if (!this.element) return;
    this.element.classList.remove("warn");
    if (!this.expires) {
      this.element.textContent = this.ended || "";
      return;
    }
    const minutes = Math.round((this.expires - Date.now()) / 60_000);
    const at = timeFormat.format(this.expires);
    const expired = minutes <= 0;
    this.element.classList.toggle("warn", minutes <= 5);
    const work = this.renews ? "saving" : "deciding";
    if (expired) {
      this.element.textContent = `Your lease expired at ${at}: ${work} still works unless someone else has taken the image.`;
    } else {
      this.element.textContent = this.renews
        ? `Yours until ${at} (${minutes} min left; saving renews it).`
        : `Yours until ${at} (${minutes} min left).`;
    }
  }
}
