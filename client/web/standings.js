// The standings of a race: one row per entrant, the player's own row marked.

import { clockText, el } from "./ui.js";

/** Status words as a person reads them ("out of time", not "out_of_time"); in Double or Naught,
 * where a game over and not won is a lost guess, "lost". */
export function statusText(status, game = "") {
  if (game === "double_or_naught" && status === "stuck") return "lost";
  return status.replace(/_/g, " ");
}

/** "1 undo", "2 undos". */
export function undosText(n) { return `${n} ${n === 1 ? "undo" : "undos"}`; }

/** The mark beside a guest's name (the header's "guest" tag); null for a claimed name. */
export function guestTag(claimed) {
  return claimed ? null : el("small", { class: "tag guest", text: "guest" });
}

/** A line's rating beside its name ("1187", "1000?" while provisional); null without one. */
export function ratingChip(line) {
  if (line.rating === null || line.rating === undefined) return null;
  const text = `${line.rating}${line.provisional ? "?" : ""}`;
  return el("small", { class: "rating", title: `rating ${text}${line.provisional ? " (provisional)" : ""}`, text });
}

/**
 * A standings table: place, name (a link to the player's profile, cut with an ellipsis when
 * long; the whole name in its title), cards cleared, moves, time, status (and the moves taken back, when any), and with
 * `points` the points each scored. `flash`: players whose rows are highlighted (they just
 * finished). Guests' names carry the "guest" tag; with `ratings`, a rated race's lines show each
 * claimed entrant's rating.
 */
export function standingsTable(standings, me, { points = false, game = "", flash = new Set(), ratings = true } = {}) {
  return el("table", { class: "standings" },
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", text: "#" }), el("th", { scope: "col", text: "Player" }),
      el("th", { scope: "col", text: "Cards" }), el("th", { scope: "col", class: "moves", text: "Moves" }),
      el("th", { scope: "col", text: "Time" }), el("th", { scope: "col", text: "Status" }),
      points ? el("th", { scope: "col", text: "Points" }) : null)),
    el("tbody", {}, standings.map((s) => el("tr", { class: `${s.player === me ? "me" : ""}${flash.has(s.player) ? " flash" : ""}`.trim(), dataset: { player: s.player } },
      el("td", { text: s.place }),
      el("td", { class: "player", title: s.name }, el("div", { class: "marked" },
        el("span", {}, el("a", { href: `/p/${s.player}`, "data-link": true, text: s.name })),
        guestTag(s.claimed), ratings ? ratingChip(s) : null)),
      el("td", { class: "cleared", text: `${s.cleared}/${s.total}` }),
      el("td", { class: "moves", text: s.moves }),
      el("td", { text: s.time_ms ? clockText(s.time_ms) : "" }),
      el("td", { class: `status ${s.status}` }, statusText(s.status, game),
        s.undos ? el("span", { class: "undos", text: undosText(s.undos) }) : null),
      points ? el("td", { class: "points", text: s.points }) : null))));
}
