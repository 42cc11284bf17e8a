// "My races" (/me): your finished races, newest first, as the server's archive keeps them, a page
// at a time ("Older races" asks for the next one). Each links to its race page, which shows the
// final standings and replays it.

import { gameByKey } from "./cards.js";
import { conn } from "./shell.js";
import { clockText, el, ordinal, when } from "./ui.js";

/** Races asked for per page. */
const PAGE = 20;

const STATUS = { won: "won", stuck: "stuck", resigned: "resigned", out_of_time: "out of time" };
const PAR = { won: "winnable", lost: "not winnable", unknown: "par unknown" };

export class HistoryPage {
  constructor(main) {
    this.main = main;
    this.cursor = null;
    this.list = el("ol", { class: "races history", id: "history" });
    this.status = el("p", { class: "muted", id: "history-status", role: "status", text: "Loading…" });
    this.more = el("button", { type: "button", id: "history-more", hidden: true, text: "Older races", onclick: () => this.load() });
    main.replaceChildren(
      el("h1", { text: "My races" }),
      el("section", { class: "card-box", "aria-labelledby": "history-title" },
        el("h2", { id: "history-title", class: "visually-hidden", text: "Finished races, newest first" }),
        this.status, this.list, this.more));
    this.off = conn.subscribe(() => {}, (resumed) => { if (!resumed) this.restart(); });
    this.load();
  }

  destroy() { this.off(); this.gone = true; }

  /** Another player now (a new token): list its races from the newest. */
  restart() {
    this.cursor = null;
    this.list.replaceChildren();
    this.load();
  }

  async load() {
    this.more.disabled = true;
    let page;
    try {
      page = await conn.history(this.cursor, PAGE);
    } catch (err) {
      if (this.gone) return;
      this.status.textContent = err.code === "unavailable" ? "This server keeps no history of finished races." : (err.reason || String(err));
      this.more.hidden = true;
      return;
    }
    if (this.gone) return;
    for (const race of page.races) this.list.append(this.row(race));
    this.cursor = page.cursor;
    this.more.hidden = !page.cursor;
    this.more.disabled = false;
    const count = this.list.children.length;
    this.status.textContent = count ? `${count}${page.cursor ? "+" : ""} finished race${count === 1 ? "" : "s"}, newest first` : "No finished race yet: play one, and it is listed here.";
  }

  row(race) {
    const game = gameByKey(race.game);
    const parts = [
      `${ordinal(race.place)} of ${race.entrants}`,
      `${race.cleared}/${race.total} cards`,
      clockText(race.time_ms),
      STATUS[race.status] || race.status,
    ];
    if (race.par) parts.push(PAR[race.par] || race.par);
    return el("li", { dataset: { race: race.race } },
      el("a", { href: `/w/${race.race}`, "data-link": true, text: `${game ? game.name : race.game} ${race.race}` }),
      el("span", { class: "muted", text: ` ${when(race.finished_ms)}: ${parts.join(", ")}` }));
  }
}
