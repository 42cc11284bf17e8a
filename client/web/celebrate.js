// The win: a panel that says it plainly ("You won in 3:12, 1st place") and leads on to what comes
// next (the rematch, the tournament's next deal, the lobby), over a shower of cards falling
// across the page. The panel is a non-modal dialog: the page stays usable under it, Close (or
// Escape) puts it away. The cards fall only while motion is on (settings.js); they take no
// clicks and screen readers do not see them.

import { SUITS } from "./cards.js";
import { motionOn } from "./settings.js";
import { navigate } from "./shell.js";
import { clockText, el, ordinal } from "./ui.js";

const FALLING = 36;

export class Celebration {
  /** Show the win of `page` (a RacePage whose player just won). */
  constructor(page) {
    this.page = page;
    this.shown = "";
    const line = page.myLine;
    const text = line ? `You won in ${clockText(line.time_ms)}, ${ordinal(line.place)} place` : "You won";
    this.next = el("div", { class: "actions" });
    this.dialog = el("dialog", { id: "celebration", class: "celebration", "aria-labelledby": "celebration-title",
      "aria-describedby": "celebration-text" },
    el("h2", { id: "celebration-title", text: "Well played!" }),
    el("p", { id: "celebration-text", text }),
    this.next);
    this.dialog.addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); page.closeCelebration(); }
    });
    this.render();
    document.body.append(this.dialog);
    this.shower = motionOn() ? this.fall() : null;
    this.dialog.show();
  }

  /** The buttons to what comes next, as the page offers it now (drawn again only on a change,
   * so that a focused button keeps its focus). */
  render() {
    const page = this.page, race = page.race, t = page.tournament;
    const buttons = [];
    if (race.tournament && t) {
      const after = race.deal + 1;
      if (t.format === "arena" && t.status === "running" && after < t.deals) {
        buttons.push(el("button", { class: "primary", id: "celebration-next", text: `Play deal ${after + 1}`, onclick: () => page.openNextDeal() }));
      }
      buttons.push(el("a", { class: "button", id: "celebration-tournament", href: `/t/${t.id}`, "data-link": true, text: `Back to ${t.name}` }));
    } else if (race.status === "finished" && !race.tournament) {
      const joined = page.rematch && page.rematchAccepted.includes(page.me);
      buttons.push(joined
        ? el("a", { class: "button primary", id: "celebration-rematch", href: `/r/${page.rematch}`, "data-link": true, text: "Go to the rematch" })
        : el("button", { class: "primary", id: "celebration-rematch", text: page.rematch ? "Accept the rematch" : "Rematch",
          onclick: () => page.action({ type: "rematch" }, (r) => navigate(`/r/${r.race.code}`)) }));
    } else if (race.status === "running") {
      buttons.push(el("a", { class: "button", id: "celebration-watch", href: `/w/${race.code}`, "data-link": true, text: "Watch the others" }));
    }
    buttons.push(el("a", { class: "button", id: "celebration-lobby", href: "/", "data-link": true, text: "Lobby" }));
    buttons.push(el("button", { id: "celebration-close", text: "Close", onclick: () => page.closeCelebration() }));
    const shown = buttons.map((b) => `${b.id}:${b.textContent}`).join("|");
    if (shown === this.shown) return;
    const focused = this.next.contains(document.activeElement) ? document.activeElement.id : null;
    this.shown = shown;
    this.next.replaceChildren(...buttons);
    if (focused) document.getElementById(focused)?.focus();
  }

  /** Cards falling across the page for a few seconds (decoration only). */
  fall() {
    const shower = el("div", { class: "shower", "aria-hidden": "true" });
    const suits = Object.entries(SUITS);
    for (let i = 0; i < FALLING; i++) {
      const [key, suit] = suits[i % 4];
      const card = el("span", { class: `falling suit-${key}`, text: suit });
      card.style.left = `${Math.random() * 96}vw`;
      shower.append(card);
      const turn = (Math.random() < 0.5 ? -1 : 1) * (180 + Math.random() * 360);
      card.animate([
        { transform: "translateY(-15vh) rotate(0deg)", opacity: 1 },
        { transform: `translateY(110vh) rotate(${turn}deg)`, opacity: 0.9 },
      ], { duration: 1800 + Math.random() * 1600, delay: Math.random() * 1200, easing: "cubic-bezier(.4,.1,.8,.6)", fill: "both" });
    }
    document.body.append(shower);
    this.timer = setTimeout(() => shower.remove(), 4800);
    return shower;
  }

  /** Put it away (`refocus`: give the focus back to the page's main area). */
  close(refocus) {
    clearTimeout(this.timer);
    if (this.shower) this.shower.remove();
    const had = this.dialog.contains(document.activeElement);
    this.dialog.close();
    this.dialog.remove();
    if (refocus && had) document.querySelector("#actions button, #actions a, #main")?.focus();
  }
}
