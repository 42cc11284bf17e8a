// Leaderboards (/leaderboard: pick a game; /leaderboard/GAME: its boards), from the server's
// archive (docs/protocol.md, leaderboard). The rating board has three views: Top (a page at a
// time, "More" asks for the next), Around me and Friends; the Daily board shows one day's results
// of the daily challenge (today or a past day). The server gives no global rank, so the "#" column
// counts the rows of the list shown, and the table's caption says so. The address keeps the board,
// the view and the day (?board=daily&day=YYYY-MM-DD, ?view=around_me), so a link opens the same.

import { allGames, gameByKey } from "./cards.js";
import { ratingText, profileLink } from "./profile.js";
import { conn, navigate } from "./shell.js";
import { clockText, el } from "./ui.js";

/** Rows asked for per page. */
const PAGE = 20;
/** The rating board counts players whose last rated race is at most this many days old. */
const ACTIVE_DAYS = 30;
const VIEWS = { top: "Top", around_me: "Around me", friends: "Friends" };
const BOARDS = { rating: "Rating", daily: "Daily" };

/** "/leaderboard": every game, each linking to its boards. */
export class LeaderboardPicker {
  constructor(main) {
    main.replaceChildren(el("section", { class: "card-box", "aria-labelledby": "boards-title" },
      el("h1", { id: "boards-title", text: "Leaderboards" }),
      el("p", { class: "hint", text: "Pick a game: its rating board, and its daily challenge's results." }),
      el("ul", { class: "races game-boards", id: "board-games" },
        allGames().map((g) => el("li", {}, el("a", { href: `/leaderboard/${g.key}`, "data-link": true, text: g.name }))))));
  }
}

/** "/leaderboard/GAME": a game's rating board (three views) and its daily board (by day). */
export class LeaderboardPage {
  constructor(main, game) {
    this.main = main;
    const query = new URLSearchParams(location.search);
    this.game = gameByKey(game)?.key || game;
    this.board = query.get("board") === "daily" ? "daily" : "rating";
    this.view = VIEWS[query.get("view")] ? query.get("view") : "top";
    this.day = /^\d{4}-\d{2}-\d{2}$/.test(query.get("day") || "") ? query.get("day") : null;
    this.render();
    this.off = conn.subscribe(() => {}, () => this.restart());
    if (conn.player) this.restart();
  }

  destroy() { this.off(); this.gone = true; }

  /** Today as the server's clock says it (UTC, YYYY-MM-DD): daily challenges change at 00:00 UTC. */
  today() { return new Date(conn.serverNow()).toISOString().slice(0, 10); }

  render() {
    const name = gameByKey(this.game)?.name || this.game;
    const pick = el("select", { id: "board-game" },
      allGames().map((g) => el("option", { value: g.key, text: g.name, selected: g.key === this.game })));
    pick.addEventListener("change", () => navigate(`/leaderboard/${pick.value}${this.board === "daily" ? "?board=daily" : ""}`));
    const switches = (id, label, options, current, choose) => el("div", { class: "switches", role: "group", id, "aria-label": label },
      Object.entries(options).map(([key, text]) => el("button", {
        type: "button", dataset: { key }, "aria-pressed": key === current ? "true" : "false", text, onclick: () => choose(key),
      })));
    this.dayInput = el("input", { type: "date", id: "board-day", max: this.today(), value: this.day || this.today() });
    this.dayInput.addEventListener("change", () => {
      if (!this.dayInput.value || this.dayInput.value > this.today()) this.dayInput.value = this.today();
      this.day = this.dayInput.value;
      this.remember();
      this.restart();
    });
    this.rows = el("tbody", { id: "board-rows" });
    this.head = el("thead");
    this.caption = el("caption", { id: "board-caption" });
    this.status = el("p", { class: "muted", id: "board-status", role: "status" });
    this.more = el("button", { type: "button", id: "board-more", hidden: true, text: "More", onclick: () => this.load() });
    this.main.replaceChildren(el("section", { class: "card-box leaderboard", "aria-labelledby": "board-title" },
      el("h1", { id: "board-title", text: `${name} leaderboard` }),
      el("div", { class: "board-controls" },
        el("label", { class: "game-pick" }, "Game ", pick),
        switches("board-kind", "Board", BOARDS, this.board, (key) => { this.board = key; this.remember(); this.render(); this.restart(); }),
        this.board === "rating"
          ? switches("board-view", "View", VIEWS, this.view, (key) => { this.view = key; this.remember(); this.render(); this.restart(); })
          : el("label", { class: "game-pick" }, "Day (UTC) ", this.dayInput)),
      this.status,
      el("div", { class: "scroll" }, el("table", { class: "board", id: "board-table" }, this.caption, this.head, this.rows)),
      this.more,
      el("p", {}, el("a", { href: "/leaderboard", "data-link": true, text: "All games' leaderboards" }))));
  }

  /** Keep the board, view and day in the address (replacing it: no history entry per click). */
  remember() {
    const query = new URLSearchParams();
    if (this.board === "daily") {
      query.set("board", "daily");
      if (this.day && this.day !== this.today()) query.set("day", this.day);
    } else if (this.view !== "top") query.set("view", this.view);
    const search = query.toString();
    history.replaceState(null, "", `/leaderboard/${this.game}${search ? `?${search}` : ""}`);
  }

  /** From the first row again (another board, view or day, or another player after a reconnect). */
  restart() {
    this.cursor = null;
    this.count = 0;
    this.rows.replaceChildren();
    const rating = this.board === "rating";
    const th = (text) => el("th", { scope: "col", text });
    this.head.replaceChildren(el("tr", {}, th("#"), th("Player"), ...(rating ? [th("Rating"), th("Races")] : [th("Cards"), th("Time"), th("Status")])));
    this.caption.textContent = rating
      ? `${VIEWS[this.view]}: by rating among players with a rated race in the last ${ACTIVE_DAYS} days. "?": provisional. # counts this list, not a global rank.`
      : `Daily challenge of ${this.day || this.today()} (UTC): by cards cleared, then time. # counts this list.`;
    this.load();
  }

  async load() {
    this.more.disabled = true;
    this.status.textContent = "Loading…";
    const message = { type: "leaderboard", game: this.game, board: this.board, limit: PAGE };
    if (this.board === "rating") {
      message.view = this.view;
      message.active_days = ACTIVE_DAYS;
      if (this.cursor) message.after = this.cursor;
    } else if (this.day) message.day = this.day;
    let page;
    try {
      page = await conn.request(message);
    } catch (err) {
      if (this.gone || err.code === "offline") return;
      this.status.textContent = err.code === "unavailable" ? "This server keeps no leaderboards."
        : err.code === "unknown_game" ? `No game called ${this.game}.` : (err.reason || String(err));
      this.more.hidden = true;
      return;
    }
    if (this.gone) return;
    for (const row of page.rows) this.rows.append(this.row(row, ++this.count));
    this.cursor = page.cursor || null;
    this.more.hidden = !this.cursor;
    this.more.disabled = false;
    this.status.textContent = this.count ? `${this.count}${this.cursor ? "+" : ""} player${this.count === 1 ? "" : "s"}`
      : this.board === "daily" ? "Nobody has played this day's challenge yet."
        : this.view === "around_me" ? "You have no rating in this game yet: race a rated race."
          : this.view === "friends" ? "Neither you nor the players you follow have a rating in this game."
            : "Nobody has a rating in this game yet.";
  }

  row(r, position) {
    const who = el("td", { class: "player" }, profileLink(r.player, r.name),
      r.claimed ? null : el("span", { class: "tag guest", text: "guest" }));
    const cells = this.board === "rating"
      ? [el("td", { class: "rating", dataset: { rating: r.rating }, text: ratingText(r.rating, r.provisional) }), el("td", { text: r.races })]
      : [el("td", { text: r.cleared ?? "" }), el("td", { text: r.time_ms === null || r.time_ms === undefined ? "" : clockText(r.time_ms) }),
        el("td", { text: (r.status || "").replace(/_/g, " ") })];
    return el("tr", { class: r.player === conn.player ? "me" : "", dataset: { player: r.player } },
      el("td", { text: position }), who, ...cells);
  }
}
