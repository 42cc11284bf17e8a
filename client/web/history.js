// "My races" (/me): your finished races, newest first, as the server's archive keeps them, a page
// at a time ("Older races" asks for the next one), each linking to its race page, which shows the
// final standings and replays it; then the tournaments you were entered in, the same way, each
// with your place and a link to its results page (/t/ID, kept once it has ended).

import { gameByKey } from "./cards.js";
import { conn } from "./shell.js";
import { clockText, el, ordinal, when } from "./ui.js";

/** Lines asked for per page. */
const PAGE = 20;

const STATUS = { won: "won", stuck: "stuck", resigned: "resigned", out_of_time: "out of time" };
const PAR = { won: "winnable", lost: "not winnable", unknown: "par unknown" };
const ENTRY = { finished: "finished", withdrawn: "withdrew", absent: "absent", playing: "playing", registered: "registered" };

/** One list of the page: its lines a page at a time from the `history` request of `kind`. */
class HistoryList {
  constructor({ kind, id, title, more, empty, counted, row }) {
    Object.assign(this, { kind, empty, counted, row });
    this.cursor = null;
    this.list = el("ol", { class: "races history", id });
    this.status = el("p", { class: "muted", id: `${id}-status`, role: "status", text: "Loading…" });
    this.more = el("button", { type: "button", id: `${id}-more`, hidden: true, text: more, onclick: () => this.load() });
    this.box = el("section", { class: "card-box", "aria-labelledby": `${id}-title` },
      el("h2", { id: `${id}-title`, text: title }), this.status, this.list, this.more);
  }

  restart() {
    this.cursor = null;
    this.list.replaceChildren();
    this.load();
  }

  async load() {
    this.more.disabled = true;
    let page;
    try {
      page = await conn.history(this.cursor, PAGE, this.kind);
    } catch (err) {
      if (this.gone) return;
      this.status.textContent = err.code === "unavailable" ? "This server keeps no history." : (err.reason || String(err));
      this.more.hidden = true;
      return;
    }
    if (this.gone) return;
    for (const line of page[this.kind] || []) this.list.append(this.row(line));
    this.cursor = page.cursor;
    this.more.hidden = !page.cursor;
    this.more.disabled = false;
    const count = this.list.children.length;
    this.status.textContent = count ? this.counted(count, page.cursor) : this.empty;
  }
}

export class HistoryPage {
  constructor(main) {
    this.main = main;
    this.races = new HistoryList({
      kind: "races", id: "history", title: "Races", more: "Older races",
      empty: "No finished race yet: play one, and it is listed here.",
      counted: (n, more) => `${n}${more ? "+" : ""} finished race${n === 1 ? "" : "s"}, newest first`,
      row: raceRow,
    });
    this.tournaments = new HistoryList({
      kind: "tournaments", id: "history-tournaments", title: "Tournaments", more: "Older tournaments",
      empty: "No tournament yet: those you enter are listed here once they end.",
      counted: (n, more) => `${n}${more ? "+" : ""} tournament${n === 1 ? "" : "s"}, newest first`,
      row: tournamentRow,
    });
    main.replaceChildren(el("h1", { text: "My races" }), this.races.box, this.tournaments.box);
    this.off = conn.subscribe(() => {}, (resumed) => { if (!resumed) this.restart(); });
    this.races.load();
    this.tournaments.load();
  }

  destroy() {
    this.off();
    this.gone = this.races.gone = this.tournaments.gone = true;
  }

  /** Another player now (a new token): list its races and tournaments from the newest. */
  restart() {
    this.races.restart();
    this.tournaments.restart();
  }
}

/** One finished race (a HistoryRace map) as a list line linking to its race page (/w/CODE),
 * which shows the final standings and replays it. */
export function raceRow(race) {
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

function tournamentRow(line) {
  const game = gameByKey(line.game);
  const parts = [
    `${ordinal(line.place)} of ${line.entrants}`,
    `${line.cleared} cards`,
    clockText(line.time_ms),
    `${game ? game.name : line.game}, ${line.deals} deal${line.deals === 1 ? "" : "s"}`,
  ];
  if (line.status !== "finished") parts.push(ENTRY[line.status] || line.status);
  if (line.outcome !== "finished") parts.push(line.outcome);
  return el("li", { dataset: { tournament: line.tournament } },
    el("a", { href: `/t/${line.tournament}`, "data-link": true, text: line.name }),
    el("span", { class: "muted", text: ` ${when(line.finished_ms)}: ${parts.join(", ")}` }));
}
