// A tournament's page: register or withdraw, play its deals, follow the standings live.

import { cardName, gameByKey } from "./cards.js";
import { conn, navigate } from "./shell.js";
import { guestTag, statusText } from "./standings.js";
import { clockText, el, toast, when } from "./ui.js";

const ADMIN_KEY = "arena.admin"; // the organiser's admin token, for this tab only
const ENTRY = { open: "", claimed: " · claimed players only", invite: " · by invitation", list: " · listed players only" };

export class TournamentPage {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.info = null;
    this.standings = [];
    this.report = null; // the organiser's fair-play report (fair_play reply), once asked for
    this.reportError = "";
    this.off = conn.subscribe((m) => this.event(m), () => this.load());
    this.load();
  }

  destroy() { this.off(); }

  async load() {
    try {
      const snap = await conn.request({ type: "follow_tournament", tournament: this.id });
      this.info = snap.tournament;
      this.standings = snap.standings;
      this.render();
      if (sessionStorage.getItem(ADMIN_KEY) && !this.report) this.fairPlay(sessionStorage.getItem(ADMIN_KEY));
      else if (this.info.organiser && this.info.organiser === conn.player && !this.report && !this.reportError) this.fairPlay(null);
    } catch (err) {
      if (err.code === "offline") return;
      this.main.replaceChildren(el("section", { class: "card-box" }, el("h1", { text: `Tournament ${this.id}` }),
        el("p", { class: "error", text: err.reason || String(err) }), el("a", { href: "/", "data-link": true, text: "Back to the lobby" })));
    }
  }

  /** Organisers: ask for the fair-play report with the admin token (kept in this tab's
   * sessionStorage while the server accepts it), or, `token` null, as the tournament's own
   * organiser, and show it in the Organiser panel. */
  async fairPlay(token) {
    try {
      this.report = await conn.request({ type: "fair_play_report", tournament: this.id, ...(token ? { admin_token: token } : {}) });
      this.reportError = "";
      if (token) sessionStorage.setItem(ADMIN_KEY, token);
    } catch (err) {
      if (err.code === "offline") return;
      this.report = null;
      this.reportError = `${err.reason || String(err)}${err.code ? ` (${err.code})` : ""}`;
      if (err.code === "not_organiser") sessionStorage.removeItem(ADMIN_KEY);
    }
    this.render();
  }

  /** The Organiser panel: the admin token, then the report's flagged pairs and entrants by deal
   * (docs/tournaments.md, "Fair play"). */
  organiser() {
    const form = el("form", { class: "organiser-form", onsubmit: (e) => {
      e.preventDefault();
      const token = e.target.elements.admin.value.trim();
      if (token) this.fairPlay(token);
    } },
    el("label", { for: "admin-token", text: "Admin token" }),
    el("input", { id: "admin-token", name: "admin", type: "password", autocomplete: "off", value: sessionStorage.getItem(ADMIN_KEY) || "" }),
    el("button", { type: "submit", id: "fair-play-show", text: "Fair-play report" }));
    const out = [];
    if (this.reportError) out.push(el("p", { class: "error", id: "fair-play-error", role: "alert", text: this.reportError }));
    const r = this.report;
    if (r) {
      if (!r.deals.length) out.push(el("p", { class: "muted", text: "No deal has finished yet." }));
      for (const d of r.deals) {
        const pairs = d.scouting.filter((p) => p.flagged);
        const agreeing = d.agreement.filter((a) => a.flagged);
        const items = [
          ...pairs.map((p) => el("li", { class: "flag-pair" }, `${p.name} used ${p.cards} cards ${p.scout_name} had seen first `,
            el("span", { class: "muted", text: `(e.g. the ${cardName(p.example.card)}: ${p.example.move}, ${p.example.gap_ms} ms after it turned up)` }))),
          ...agreeing.map((a) => el("li", { class: "flag-entrant", text: `${a.name} played the all-seeing solver's choice at ${a.agreed} of ${a.positions} positions` })),
        ];
        out.push(el("h3", { text: `Deal ${d.deal + 1}` }), items.length ? el("ul", { class: "fair-play" }, items)
          : el("p", { class: "muted", text: `Nothing flagged${d.solver ? "" : " (without the solver part)"}.` }));
      }
      if (r.pending.length) out.push(el("p", { class: "muted", text: `Still being worked out: deal ${r.pending.map((d) => d + 1).join(", ")}` }));
    }
    return el("details", { class: "card-box organiser", id: "organiser", open: Boolean(r || this.reportError || this.organiserOpen),
      ontoggle: (e) => { this.organiserOpen = e.target.open; } },
    el("summary", { text: "Organiser" }), form, el("div", { id: "fair-play" }, out));
  }

  /** Our entry waits for the organiser's approval (the register reply said why; it is listed). */
  get waiting() { return Boolean(this.pending) && !this.registered && (this.info.pending || []).length > 0; }

  get registered() { return this.standings.some((s) => s.player === conn.player && s.status !== "withdrawn"); }

  event(m) {
    if (m.type !== "tournament_event" || m.tournament.id !== this.id) return;
    this.info = m.tournament;
    if (m.standings && m.standings.length) this.standings = m.standings;
    if (m.kind === "deal_started" && m.race && this.registered && this.info.format === "rounds") {
      toast(`Deal ${m.deal + 1} has started`, "info");
      navigate(`/r/${m.race}`);
      return;
    }
    this.render();
  }

  async act(message) {
    try {
      const reply = await conn.request({ ...message, tournament: this.id });
      if (reply.type === "race") { navigate(`/r/${reply.race.code}`); return; }
      if (message.type === "register_tournament") { // held for the organiser's approval: the reply says why
        this.pending = reply.pending || "";
        if (this.pending) toast(this.pending, "info");
      }
      if (message.type === "withdraw_tournament") this.pending = "";
      await this.load();
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  render() {
    const t = this.info;
    const game = gameByKey(t.game);
    const registered = this.registered;
    const buttons = [];
    if (["scheduled", "registration", "starting", "running"].includes(t.status)) {
      if (!registered && this.waiting) buttons.push(el("button", { id: "withdraw", text: "Withdraw my entry", onclick: () => this.act({ type: "withdraw_tournament" }) }));
      else if (!registered && t.entry === "invite") {
        const code = el("input", { id: "invite-code", name: "code", maxlength: 32, autocomplete: "off", value: new URLSearchParams(location.search).get("code") || "" });
        buttons.push(el("form", { class: "organiser-form", id: "invite-form", onsubmit: (e) => { e.preventDefault(); this.act({ type: "register_tournament", code: code.value.trim() }); } },
          el("label", { for: "invite-code", text: "Invite code" }), code, el("button", { class: "primary", id: "register", type: "submit", text: "Register" })));
      } else if (!registered) buttons.push(el("button", { class: "primary", id: "register", text: "Register", onclick: () => this.act({ type: "register_tournament" }) }));
      else if (t.status !== "running") buttons.push(el("button", { id: "withdraw", text: "Withdraw", onclick: () => this.act({ type: "withdraw_tournament" }) }));
    }
    if (registered && t.format === "arena" && t.status === "running") {
      buttons.push(el("button", { class: "primary", id: "play-deal", text: "Play my next deal", onclick: () => this.act({ type: "open_deal" }) }));
    }
    if (registered && t.format === "rounds" && t.status === "running" && t.races.length) {
      buttons.push(el("a", { class: "button primary", href: `/r/${t.races[t.races.length - 1]}`, "data-link": true, text: `Play deal ${t.races.length}` }));
    }
    buttons.push(el("a", { class: "button quiet", href: `/t/${t.id}.ics`, download: `${t.id}.ics`, id: "calendar", text: "Add to calendar" }));
    buttons.push(el("a", { class: "button quiet", href: "/", "data-link": true, text: "Lobby" }));
    const deals = [];
    for (let i = 0; i < t.deals; i++) {
      const race = t.races[i];
      deals.push(el("li", {}, `Deal ${i + 1}: `, race ? el("a", { href: `/w/${race}`, "data-link": true, text: `race ${race}` })
        : el("span", { class: "muted", text: i === t.races.length && t.next_deal_ms ? `dealt at ${new Date(t.next_deal_ms).toLocaleTimeString()}` : "not dealt yet" }),
      t.commitments[i] ? el("code", { class: "hint", text: ` ${t.commitments[i].slice(0, 16)}…` }) : null,
      t.seeds ? ` · seed ${String(t.seeds[i])}` : ""));
    }
    const table = el("table", { class: "standings", id: "tournament-standings" },
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "#" }), el("th", { scope: "col", text: "Player" }),
        el("th", { scope: "col", text: "Cards" }), el("th", { scope: "col", text: "Time" }),
        [...Array(t.deals).keys()].map((i) => el("th", { scope: "col", text: `Deal ${i + 1}` })), el("th", { scope: "col", text: "Status" }))),
      el("tbody", {}, this.standings.map((s) => el("tr", { class: s.player === conn.player ? "me" : "" },
        el("td", { text: s.place }), el("td", { class: "player", title: s.name }, el("div", { class: "marked" }, el("span", { text: s.name }), guestTag(s.claimed))), el("td", { text: s.cleared }),
        el("td", { text: clockText(s.time_ms) }),
        [...Array(t.deals).keys()].map((i) => el("td", { text: s.deals[i] ? `${s.deals[i].cleared} · ${statusText(s.deals[i].status)}` : "" })),
        el("td", { text: s.status })))));
    this.main.replaceChildren(el("section", { class: "tournament" },
      el("h1", {}, t.name, " ", el("span", { class: "code", text: t.id })),
      el("p", { class: "summary" }, `${game ? game.name : t.game} · ${t.deals} deals · ${t.format}${ENTRY[t.entry] || ""} · `, el("strong", { id: "tournament-status", text: t.status })),
      el("p", { class: "meta" }, `Starts ${when(t.starts_at_ms)}`, t.schedule ? ` · repeats ${t.schedule} (${t.timezone})` : "",
        ` · registration opens ${when(t.registration_opens_ms)} · ${t.registered.length}/${t.max_entrants} registered`,
        registered ? " · you are registered" : "", this.waiting ? el("span", { id: "entry-pending", text: " · your entry waits for the organiser's approval" }) : ""),
      el("div", { class: "actions" }, buttons),
      el("div", { class: "columns" },
        el("section", { class: "card-box wide", "aria-labelledby": "t-standings" }, el("h2", { id: "t-standings", text: "Standings" }),
          this.standings.length ? el("div", { class: "scroll", tabindex: 0, role: "region", "aria-label": "tournament standings" }, table)
            : el("p", { class: "muted", text: "Nobody yet." })),
        el("section", { class: "card-box", "aria-labelledby": "t-deals" }, el("h2", { id: "t-deals", text: "Deals" }), el("ul", { class: "deals" }, deals))),
      this.organiser()));
  }
}
