// "/organise": an organiser (a claimed player the server's admin made one) creates tournaments
// here, and sees those it runs. The server decides who may: anyone else's request is refused
// (not_organiser), and the page says why.

import { allGames } from "./cards.js";
import { conn } from "./shell.js";
import { el, when } from "./ui.js";

/** The browser's IANA time zone (a recurring schedule's cron runs in it). */
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** A `datetime-local` value for a local instant ("YYYY-MM-DDTHH:MM"). */
function localInput(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export class OrganisePage {
  constructor(main) {
    this.main = main;
    this.created = null; // {tournament, invite_code} of the last creation
    this.error = "";
    this.mine = []; // the tournaments this player runs
    this.render();
    this.off = conn.subscribe(() => {}, () => this.refresh());
    this.refresh();
  }

  destroy() { this.off(); }

  async refresh() {
    try {
      const list = await conn.request({ type: "list_tournaments" });
      this.mine = list.tournaments.filter((t) => t.organiser && t.organiser === conn.player);
      this.renderMine();
    } catch (err) { /* offline: the reconnect hook asks again */ }
  }

  /** The form's fields as a create_tournament request. */
  request(form) {
    const f = form.elements;
    const message = {
      type: "create_tournament",
      name: f.name.value.trim(),
      game: f.game.value,
      format: f.format.value,
      deals: Number(f.deals.value),
      deal_time_limit_s: Number(f.limit.value) * 60,
      max_entries_per_address: 1,
      entry: f.entry.value,
    };
    if (f.cron.value.trim()) Object.assign(message, { cron: f.cron.value.trim(), timezone: ZONE });
    else if (f.start.value) message.starts_at = new Date(f.start.value).toISOString(); // the local time, as UTC
    else throw { reason: "give a start time, or a cron schedule to repeat it" };
    if (message.entry === "list") message.allow = f.allow.value.split(/[\n,]+/).map((n) => n.trim()).filter(Boolean);
    if (message.entry === "invite" && f.code.value.trim()) message.invite_code = f.code.value.trim();
    return message;
  }

  async create(form) {
    try {
      const reply = await conn.request(this.request(form));
      this.created = { tournament: reply.tournament, code: reply.invite_code || "" };
      this.error = "";
      form.reset();
      this.showEntry(form);
      await this.refresh();
    } catch (err) {
      this.created = null;
      this.error = `${err.reason || String(err)}${err.code ? ` (${err.code})` : ""}`;
    }
    this.renderResult();
  }

  /** Show the allow-list only for entry "list", the invite code only for "invite". */
  showEntry(form) {
    const entry = form.elements.entry.value;
    form.querySelector("#organise-allow-row").hidden = entry !== "list";
    form.querySelector("#organise-code-row").hidden = entry !== "invite";
  }

  renderResult() {
    const out = [];
    if (this.error) out.push(el("p", { class: "error", id: "organise-error", role: "alert", text: this.error }));
    if (this.created) {
      const t = this.created.tournament;
      const invite = this.created.code ? `${location.origin}/t/${t.id}?code=${encodeURIComponent(this.created.code)}` : "";
      out.push(el("p", { id: "organise-created", role: "status" }, "Created ",
        el("a", { href: `/t/${t.id}`, "data-link": true, id: "organise-link", text: `${t.name} (${t.id})` }),
        `, starting ${when(t.starts_at_ms)}.`));
      if (invite) {
        out.push(el("p", {}, "Invite code: ", el("strong", { id: "organise-code", text: this.created.code }),
          " · share this link: ", el("code", { id: "organise-invite", text: invite })));
      }
    }
    this.result.replaceChildren(...out);
  }

  renderMine() {
    this.mineList.replaceChildren(...(this.mine.length ? this.mine.map((t) => el("li", {},
      el("a", { href: `/t/${t.id}`, "data-link": true, text: t.name }),
      el("span", { class: "muted", text: ` ${t.id} · ${t.status} · ${when(t.starts_at_ms)} · ${t.entry} entry` })))
      : [el("li", { class: "muted", text: "None yet." })]));
  }

  render() {
    const soon = new Date(Date.now() + 3600_000);
    soon.setMinutes(0, 0, 0);
    const field = (id, label, input, hint) => el("div", { class: "field", id: `${id}-row` },
      el("label", { for: id, text: label }), input, hint ? el("span", { class: "hint", id: `${id}-hint`, text: hint }) : null);
    const form = el("form", { class: "organise-form", id: "organise-form", onsubmit: (e) => { e.preventDefault(); this.create(e.target); } },
      field("organise-name", "Name", el("input", { id: "organise-name", name: "name", required: true, maxlength: 64, autocomplete: "off" })),
      field("organise-game", "Game", el("select", { id: "organise-game", name: "game" },
        allGames().map((g) => el("option", { value: g.key, text: g.name })))),
      field("organise-format", "Format", el("select", { id: "organise-format", name: "format" },
        el("option", { value: "rounds", text: "Rounds: everyone plays each deal together" }),
        el("option", { value: "arena", text: "Arena: each entrant plays the deals in a window" }))),
      field("organise-deals", "Deals", el("input", { id: "organise-deals", name: "deals", type: "number", min: 1, max: 20, value: 3, required: true })),
      field("organise-limit", "Minutes per deal", el("input", { id: "organise-limit", name: "limit", type: "number", min: 1, max: 1440, value: 10, required: true })),
      field("organise-start", "Starts at (your local time)", el("input", { id: "organise-start", name: "start", type: "datetime-local", value: localInput(soon) })),
      field("organise-cron", "Or repeat (cron)", el("input", { id: "organise-cron", name: "cron", placeholder: "0 20 * * FRI", maxlength: 64, autocomplete: "off", "aria-describedby": "organise-cron-hint" }),
        `Five fields, in ${ZONE}; leave empty for a one-off tournament.`),
      field("organise-entry", "Who may enter", el("select", { id: "organise-entry", name: "entry", onchange: (e) => this.showEntry(e.target.form) },
        el("option", { value: "open", text: "Anyone" }),
        el("option", { value: "claimed", text: "Claimed players only" }),
        el("option", { value: "invite", text: "Those with the invite code" }),
        el("option", { value: "list", text: "The claimed names I list" }))),
      field("organise-allow", "Names that may enter", el("textarea", { id: "organise-allow", name: "allow", rows: 3, "aria-describedby": "organise-allow-hint" }),
        "Claimed names, one a line or separated by commas."),
      field("organise-code", "Invite code", el("input", { id: "organise-code-input", name: "code", maxlength: 32, pattern: "[A-Za-z0-9_\\-]{4,32}", autocomplete: "off", "aria-describedby": "organise-code-hint" }),
        "4 to 32 letters, digits, - or _; empty: the server makes one."),
      el("div", { class: "actions" }, el("button", { type: "submit", class: "primary", id: "organise-create", text: "Create tournament" })));
    form.querySelector("#organise-code-row label").setAttribute("for", "organise-code-input");
    this.result = el("div", { id: "organise-result" });
    this.mineList = el("ul", { class: "races", id: "organise-mine" });
    this.main.replaceChildren(el("section", { class: "organise" },
      el("h1", { text: "Organise a tournament" }),
      el("p", { class: "summary", text: "For organisers: claimed players the server's admin has made organisers. You can cancel, review and follow the tournaments you create." }),
      el("div", { class: "columns" },
        el("section", { class: "card-box wide", "aria-labelledby": "organise-new" }, el("h2", { id: "organise-new", text: "New tournament" }), form, this.result),
        el("section", { class: "card-box", "aria-labelledby": "organise-yours" }, el("h2", { id: "organise-yours", text: "Your tournaments" }), this.mineList))));
    this.showEntry(form);
    this.renderResult();
    this.renderMine();
  }
}
