// A player's profile (/p/NAME for a claimed name, /p/ID for a player id): its name, claimed or
// guest, since when the server knows it, its statistics per game with its rating ("?" while
// provisional) and a chart of the rating's history, its recent races (each linking to its race
// page, which replays it), and, when it is not you, Follow / Unfollow and Challenge.

import { allGames, gameByKey } from "./cards.js";
import { ratingChart } from "./chart.js";
import { raceRow } from "./history.js";
import { conn, navigate } from "./shell.js";
import { clockText, el, toast } from "./ui.js";

/** A player id as the server makes them (`server.handlers.players.new_player_id`). */
const PLAYER_ID = /^p[0-9a-f]{12}$/;

/** A rating as players read it: whole display points, "?" while provisional. */
export function ratingText(rating, provisional) {
  return rating === null || rating === undefined ? "unrated" : `${rating}${provisional ? "?" : ""}`;
}

/** A link to player `player`'s profile (by id), showing `name`. */
export function profileLink(player, name, attrs = {}) {
  return el("a", { href: `/p/${encodeURIComponent(player)}`, "data-link": true, class: "player-link", text: name, ...attrs });
}

export class ProfilePage {
  constructor(main, who) {
    this.main = main;
    this.who = who;
    main.replaceChildren(el("h1", { text: "Player" }), el("p", { class: "muted", id: "profile-status", role: "status", text: "Loading…" }));
    this.off = conn.subscribe(() => {}, () => this.load());
    if (conn.player) this.load();
  }

  destroy() { this.off(); this.gone = true; }

  /** Ask for the profile: by id when the address looks like one (a claimed name that looks like an
   * id is tried next), else by claimed name. */
  async load() {
    let reply = null;
    try {
      if (PLAYER_ID.test(this.who)) {
        try {
          reply = await conn.request({ type: "profile", player: this.who });
        } catch (err) {
          if (err.code !== "unknown_player") throw err;
        }
      }
      if (!reply) reply = await conn.request({ type: "profile", name: this.who });
    } catch (err) {
      if (this.gone || err.code === "offline") return;
      const text = err.code === "unknown_player" ? `Nobody called ${this.who} here: names are kept once claimed.`
        : err.code === "unavailable" ? "This server keeps no profiles." : (err.reason || String(err));
      this.main.replaceChildren(el("h1", { text: "Player" }), el("p", { class: "muted", id: "profile-status", role: "status", text }));
      return;
    }
    if (this.gone) return;
    this.profile = reply;
    this.render();
    if (reply.player !== conn.player && conn.claimed && reply.claimed) this.refreshFollowing();
  }

  render() {
    const p = this.profile;
    this.followButton = el("button", { type: "button", id: "profile-follow", text: "Follow", onclick: () => this.toggleFollow() });
    const mine = p.player === conn.player;
    const games = allGames();
    const played = p.games.length ? p.games[0].game : (localStorage.getItem("arena.game") || games[0].key);
    const pick = el("select", { id: "profile-game", "aria-label": "Game to challenge in" },
      games.map((g) => el("option", { value: g.key, text: g.name, selected: g.key === played })));
    const followHint = !conn.claimed ? "Claim your name (Account) to follow players."
      : !p.claimed ? "Only players who claimed their name can be followed." : "";
    const actions = mine ? el("p", { class: "muted", text: "This is you." })
      : el("div", { class: "profile-actions" },
        this.followButton,
        el("button", { type: "button", class: "primary", id: "profile-challenge", text: `Challenge ${p.name}`, onclick: () => this.challenge(pick.value) }),
        pick,
        followHint ? el("p", { class: "hint", id: "follow-hint", text: followHint }) : null);
    this.followButton.disabled = Boolean(followHint);
    if (followHint) this.followButton.setAttribute("aria-describedby", "follow-hint");
    this.main.replaceChildren(
      el("section", { class: "card-box profile-head", "aria-labelledby": "profile-name" },
        el("h1", { id: "profile-name-line" }, el("span", { id: "profile-name", text: p.name }), " ",
          el("span", { class: `tag ${p.claimed ? "claimed" : "guest"}`, id: "profile-tag", text: p.claimed ? "claimed" : "guest" })),
        el("p", { class: "muted", id: "profile-since", text: `Playing here since ${new Date(p.created_ms).toLocaleDateString([], { dateStyle: "medium" })}` }),
        actions),
      el("section", { class: "card-box", "aria-labelledby": "profile-games-title" },
        el("h2", { id: "profile-games-title", text: "Games" }),
        p.games.length ? el("div", { class: "columns stats" }, p.games.map((g) => this.gameCard(g)))
          : el("p", { class: "muted", text: "No finished race yet." })),
      el("section", { class: "card-box", "aria-labelledby": "profile-recent-title" },
        el("h2", { id: "profile-recent-title", text: "Recent races" }),
        p.recent.length ? el("ol", { class: "races history", id: "profile-recent" }, p.recent.map(raceRow))
          : el("p", { class: "muted", text: "No finished race yet." })));
  }

  /** One game's statistics, its rating and the chart of its history. */
  gameCard(g) {
    const name = gameByKey(g.game)?.name || g.game;
    const points = this.profile.rating_history.filter((r) => r.game === g.game);
    const stat = (label, value) => [el("dt", { text: label }), el("dd", { text: value })];
    return el("article", { class: "game-stats", dataset: { game: g.game }, "aria-labelledby": `stats-${g.game}` },
      el("h3", { id: `stats-${g.game}` }, name, " ",
        el("a", { href: `/leaderboard/${g.game}`, "data-link": true, class: "rating", dataset: { rating: g.rating ?? "" },
          "aria-label": `Rating ${ratingText(g.rating, g.provisional)}${g.provisional && g.rating !== null ? " (provisional)" : ""}: ${name} leaderboard`,
          text: ratingText(g.rating, g.provisional) })),
      el("dl", {},
        stat("Played", g.played), stat("Won", g.won), stat("Win rate", `${Math.round(g.win_rate * 100)}%`),
        stat("Best win", g.best_win_ms === null ? "–" : clockText(g.best_win_ms)),
        stat("Mean win", g.mean_win_ms === null ? "–" : clockText(g.mean_win_ms)),
        stat("Cards cleared", g.cleared), stat("Streak", g.streak), stat("Best streak", g.best_streak)),
      points.length ? ratingChart(points, `Rating in ${name}`) : null);
  }

  /** Whether you follow this player (the `friends` list), shown on the Follow button. */
  async refreshFollowing() {
    try {
      this.showFollowing(await conn.request({ type: "friends" }));
    } catch (err) {
      if (err.code !== "offline") toast(err.reason || String(err));
    }
  }

  showFollowing(reply) {
    if (this.gone) return;
    this.following = reply.players.some((f) => f.player === this.profile.player);
    this.followButton.textContent = this.following ? "Unfollow" : "Follow";
  }

  async toggleFollow() {
    const player = this.profile.player;
    try {
      this.showFollowing(await conn.request(this.following ? { type: "unfollow", player } : { type: "follow", player }));
      toast(this.following ? `You follow ${this.profile.name}` : `You no longer follow ${this.profile.name}`, "info");
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  /** Challenge this player to a race of `game`: your race page, to start once they join. */
  async challenge(game) {
    try {
      const reply = await conn.request({ type: "challenge", player: this.profile.player, game });
      navigate(`/r/${reply.race.code}`);
    } catch (err) {
      toast(err.reason || String(err));
    }
  }
}

/** The profile address `/p/WHO` names: WHO decoded (a claimed name may hold any character). */
export function profileTarget(raw) {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
