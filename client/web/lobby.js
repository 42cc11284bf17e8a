// The lobby: play a game now, set up a race for friends, join one by its code, and the races and
// tournaments open to join or to watch.

import { allGames, gameByKey } from "./cards.js";
import { store } from "./net.js";
import { conn, navigate } from "./shell.js";
import { guestTag } from "./standings.js";
import { $, el, toast, when } from "./ui.js";

/** A listed race's entrants, each guest's name marked "guest" (`RaceInfo.claimed`). */
function entrantNames(race) {
  if (!race.entrants.length) return "nobody yet";
  const claimed = race.claimed || [];
  return el("span", { class: "entrants" }, race.entrants.flatMap((name, i) =>
    [i ? ", " : "", el("span", { class: "entrant", text: name }), ...(claimed[i] === false ? [" ", guestTag(false)] : [])]));
}

/** How long a solo game may last, in seconds. */
const SOLO_LIMIT_S = 60 * 60;

export class LobbyPage {
  constructor(main) {
    this.main = main;
    this.render();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), 5000);
    this.off = conn.subscribe((m) => this.onEvent(m), () => { this.refresh(); this.showRated(); });
  }

  destroy() { clearInterval(this.timer); this.off(); }

  /** The Friends box: challenges waiting for you, the players you follow, and a field to follow one. */
  friendsBox() {
    const input = el("input", { id: "follow-name", maxlength: 32, autocomplete: "off", placeholder: "claimed name" });
    const follow = async (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name) return;
      try {
        this.showFriends(await conn.request({ type: "follow", name }));
        input.value = "";
      } catch (err) {
        toast(err.reason || String(err));
      }
    };
    return el("section", { class: "card-box friends", id: "friends", "aria-labelledby": "friends-title" },
      el("h2", { id: "friends-title", text: "Friends" }),
      el("ul", { class: "races", id: "invitations", "aria-label": "Challenges for you", "aria-live": "polite" }),
      el("ul", { class: "races", id: "friends-list", "aria-label": "Players you follow" }),
      el("form", { class: "join", id: "follow-form", onsubmit: follow },
        el("label", {}, "Follow a player ", input), el("button", { type: "submit", text: "Follow" })));
  }

  /** A pushed event: a challenge for you shows at once; a declined challenge says so. */
  onEvent(message) {
    if (message.type === "invitation") this.refreshFriends();
    if (message.type === "declined") toast(`Your challenge (race ${message.race}) was declined`, "info");
  }

  async refreshFriends() {
    try {
      this.showFriends(await conn.request({ type: "friends" }));
    } catch (err) {
      if (err.code !== "offline") toast(err.reason || String(err));
    }
  }

  /** Show a `following` reply: each invitation with Accept and Decline, each followed player's
   * status with Watch (racing) and Challenge. */
  showFriends(reply) {
    const game = (key) => gameByKey(key)?.name || key;
    const invitations = reply.invitations.map((i) => el("li", { class: "invitation", "data-race": i.race },
      `${i.from_name} challenges you to ${game(i.game)} `,
      el("button", { type: "button", class: "primary", text: "Accept", "aria-label": `Accept ${i.from_name}'s challenge`, onclick: () => this.accept(i.race) }),
      " ",
      el("button", { type: "button", text: "Decline", "aria-label": `Decline ${i.from_name}'s challenge`, onclick: () => this.decline(i.race) })));
    $("#invitations").replaceChildren(...invitations);
    const people = reply.players.map((f) => el("li", { class: "friend", "data-player": f.player },
      `${f.name} · ${f.racing ? "racing" : f.online ? "online" : "offline"} `,
      ...(f.racing ? [el("a", { href: `/w/${f.racing}`, "data-link": true, class: "button", text: "Watch", "aria-label": `Watch ${f.name}'s race` }), " "] : []),
      el("button", { type: "button", text: "Challenge", "aria-label": `Challenge ${f.name}`, onclick: () => this.challenge(f.player) }),
      " ",
      el("button", { type: "button", text: "Unfollow", "aria-label": `Unfollow ${f.name}`, onclick: () => this.unfollow(f.player) })));
    $("#friends-list").replaceChildren(...(people.length ? people
      : [el("li", { class: "muted", text: "Follow players who claimed their name to see when they play." })]));
  }

  /** Challenge a followed player to a race of the picked game: its race page, to start once they join. */
  async challenge(player) {
    try {
      const reply = await conn.request({ type: "challenge", player, game: $("#game").value });
      navigate(`/r/${reply.race.code}`);
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  async accept(race) {
    try {
      await conn.request({ type: "join_race", race });
      navigate(`/r/${race}`);
    } catch (err) {
      toast(err.reason || String(err));
      this.refreshFriends();
    }
  }

  async decline(race) {
    try {
      await conn.request({ type: "decline", race });
    } catch (err) {
      toast(err.reason || String(err));
    }
    this.refreshFriends();
  }

  async unfollow(player) {
    try {
      this.showFriends(await conn.request({ type: "unfollow", player }));
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  render() {
    const games = allGames();
    const last = localStorage.getItem("arena.game");
    const gameSelect = el("select", { id: "game" },
      games.map((g) => el("option", { value: g.key, text: g.name, selected: g.key === last })));
    const summary = el("p", { class: "summary", id: "game-summary" });
    const board = el("a", { href: "/leaderboard", "data-link": true, id: "leaderboard-open", text: "Leaderboards" });
    const showGame = () => {
      const g = gameByKey(gameSelect.value);
      localStorage.setItem("arena.game", g.key);
      summary.replaceChildren(g.summary + " ", el("a", { href: g.rules, text: `How to play ${g.name}` }));
      board.setAttribute("href", `/leaderboard/${g.key}`);
      board.textContent = `${g.name} leaderboard`;
    };
    gameSelect.addEventListener("change", showGame);
    gameSelect.addEventListener("change", () => this.refreshDaily());
    const form = el("form", { class: "create", id: "create-form", onsubmit: (e) => { e.preventDefault(); this.create(form); } },
      el("p", { class: "hint", text: "Everyone who joins gets the same deal. Send them the link, then start." }),
      el("label", {}, "Seed ", el("input", { name: "seed", inputmode: "numeric", placeholder: "random", pattern: "[0-9]*", maxlength: 19 })),
      el("div", { class: "row" },
        el("label", {}, "Entrants ", el("input", { name: "entrants", type: "number", min: 1, max: 64, value: 8 })),
        el("label", {}, "Minutes ", el("input", { name: "minutes", type: "number", min: 1, max: 1440, value: 15 })),
        el("label", {}, "Countdown (s) ", el("input", { name: "countdown", type: "number", min: 0, max: 60, value: 3 }))),
      el("label", { class: "check" }, el("input", { name: "winnable", type: "checkbox" }), " a deal known to be winnable"),
      el("label", { class: "check" }, el("input", { name: "rated", id: "rated", type: "checkbox", "aria-describedby": "rated-hint" }), " Rated"),
      el("p", { class: "hint", id: "rated-hint" }),
      el("button", { type: "submit", class: "primary", text: "Create race" }));
    const nameInput = el("input", { id: "name", value: conn.name || store.name || "", maxlength: 32, autocomplete: "nickname" });
    const codeInput = el("input", { id: "join-code", placeholder: "race code", maxlength: 16, autocapitalize: "characters" });
    this.lists = {
      open: el("ul", { class: "races", id: "open-races" }),
      live: el("ul", { class: "races", id: "live-races" }),
      tournaments: el("ul", { class: "races", id: "tournaments" }),
    };
    this.main.replaceChildren(
      el("h1", { class: "lobby-title", text: "Play patience, race your friends" }),
      el("div", { class: "columns" },
        el("section", { class: "card-box play", "aria-labelledby": "play-title" },
          el("h2", { id: "play-title", text: "Play" }),
          el("label", { class: "game-pick" }, "Game ", gameSelect),
          summary,
          el("p", { class: "summary" }, board),
          el("button", { type: "button", class: "primary big", id: "play-now", text: "Play now", onclick: () => this.playNow() }),
          el("details", { id: "friend" }, el("summary", { text: "Race a friend" }), form)),
        el("section", { class: "card-box you", "aria-labelledby": "you-title" },
          el("h2", { id: "you-title", text: "You" }),
          el("form", { onsubmit: (e) => { e.preventDefault(); this.rename(nameInput.value); } },
            el("label", {}, "Your name ", nameInput), el("button", { type: "submit", text: "Save" })),
          el("form", { class: "join", onsubmit: (e) => { e.preventDefault(); if (codeInput.value.trim()) navigate(`/r/${codeInput.value.trim().toUpperCase()}`); } },
            el("label", {}, "Join by code ", codeInput), el("button", { type: "submit", text: "Go" }))),
        this.friendsBox(),
        el("section", { class: "card-box daily", id: "daily", "aria-labelledby": "daily-title" },
          el("h2", { id: "daily-title", text: "Daily challenge" }),
          el("p", { class: "summary", id: "daily-info", text: "Today's deal of the game you picked: the same for everyone, once each." }),
          el("button", { type: "button", class: "primary", id: "play-daily", text: "Play", onclick: () => this.playDaily() }),
          el("ol", { class: "calendar", id: "daily-calendar", "aria-label": "Your daily challenges this month" }),
          el("a", { href: `/leaderboard/${gameSelect.value}?board=daily`, "data-link": true, id: "daily-boards", class: "quiet", text: "Daily boards" })),
        el("section", { class: "card-box", "aria-labelledby": "open-title" }, el("h2", { id: "open-title", text: "Open races" }), this.lists.open),
        el("section", { class: "card-box", "aria-labelledby": "live-title" }, el("h2", { id: "live-title", text: "Live races" }), this.lists.live),
        el("section", { class: "card-box", "aria-labelledby": "tournaments-title" }, el("h2", { id: "tournaments-title", text: "Tournaments" }), this.lists.tournaments,
          el("a", { href: "/organise", "data-link": true, id: "organise-open", class: "quiet", text: "Organise a tournament" }))));
    showGame();
    this.showRated();
    this.refreshDaily();
  }

  /** A rated race is for claimed players: a guest sees the box disabled and why. */
  showRated() {
    const box = $("#rated");
    if (!box) return;
    box.disabled = !conn.claimed;
    if (!conn.claimed) box.checked = false;
    $("#rated-hint").textContent = conn.claimed
      ? "Moves the ratings of the claimed entrants (two or more, on a secret deal)."
      : "Rated races are for claimed names: claim yours on the Account page.";
  }

  /** Today's daily challenge of the picked game: your attempt, your streak, and this month's days. */
  async refreshDaily() {
    const game = $("#game").value;
    $("#daily-boards").setAttribute("href", `/leaderboard/${game}?board=daily`);
    try {
      const info = await conn.request({ type: "daily", game, limit: 3 });
      const deal = info.deals.find((d) => d.game === game);
      const mine = deal && deal.mine;
      const name = gameByKey(game)?.name || game;
      const button = $("#play-daily");
      button.textContent = mine && mine.status === "playing" ? `Resume today's ${name}` : `Play today's ${name}`;
      button.disabled = Boolean(mine && mine.status !== "playing");
      const best = info.results.map((r, i) => `${i + 1}. ${r.name} ${r.cleared}/${r.total}`).join(" · ");
      $("#daily-info").textContent = (mine && mine.status === "void"
        ? `${info.day}: your attempt is void: the server lost moves, so it has no result.`
        : mine && mine.status !== "playing"
        ? `${info.day}: you played it (${mine.cleared}/${mine.total}, ${mine.status.replace(/_/g, " ")}).`
        : `${info.day}: the same ${name} deal for everyone, once each.`)
        + ` Streak ${info.streak.current} (best ${info.streak.best}).` + (best ? ` Best today: ${best}` : "");
      const page = await conn.request({ type: "daily_calendar", month: info.day.slice(0, 7) });
      $("#daily-calendar").replaceChildren(...page.days.map((d) => el("li", {
        class: d.result ? "played" : "",
        title: d.result ? `${d.day}: ${d.result.game} ${d.result.cleared}/${d.result.total} ${d.result.status}` : `${d.day}: not played`,
        text: String(Number(d.day.slice(8))),
      })));
    } catch (err) {
      if (err.code !== "offline") toast(err.reason || String(err));
    }
  }

  /** Today's daily deal of the picked game: ranked, once (an unfinished attempt resumes). */
  async playDaily() {
    try {
      const reply = await conn.request({ type: "play_daily", game: $("#game").value });
      navigate(`/r/${reply.race.code}`);
    } catch (err) {
      toast(err.reason || String(err));
      this.refreshDaily();
    }
  }

  async rename(name) {
    name = name.trim();
    if (!name || name === conn.name) return;
    try {
      await conn.rename(name);
      toast(`You are now ${conn.name}`, "info");
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  async refresh() {
    this.refreshFriends();
    try {
      const [open, live, tournaments] = await Promise.all([
        conn.request({ type: "list_races", status: "open" }),
        conn.request({ type: "list_races", status: "live" }),
        conn.request({ type: "list_tournaments" }),
      ]);
      const raceItem = (r, path, verb) => el("li", {},
        el("a", { href: `${path}/${r.code}`, "data-link": true, text: `${gameByKey(r.game)?.name || r.game}` }),
        ` ${r.code} · ${r.entrants.length}/${r.max_entrants} · `, entrantNames(r), " ",
        el("a", { href: `${path}/${r.code}`, "data-link": true, class: "button", text: verb, "aria-label": `${verb} race ${r.code}` }));
      this.lists.open.replaceChildren(...(open.races.length ? open.races.map((r) => raceItem(r, "/r", "Join")) : [el("li", { class: "muted", text: "None yet: race a friend to make one." })]));
      this.lists.live.replaceChildren(...(live.races.length ? live.races.map((r) => raceItem(r, "/w", "Watch")) : [el("li", { class: "muted", text: "Nothing running." })]));
      const shown = tournaments.tournaments.filter((t) => t.status !== "finished" && t.status !== "cancelled").slice(-20);
      this.lists.tournaments.replaceChildren(...(shown.length ? shown.map((t) => el("li", {},
        el("a", { href: `/t/${t.id}`, "data-link": true, text: t.name }),
        ` · ${gameByKey(t.game)?.name || t.game} · ${t.status} · ${when(t.starts_at_ms)} · ${t.registered.length} registered`))
        : [el("li", { class: "muted", text: "None scheduled." })]));
    } catch (err) {
      if (err.code !== "offline") toast(err.reason || String(err));
    }
  }

  /** One tap: a race of one on a fresh secret deal, started at once with no countdown (so it is
   * recorded and verifiable like any race). */
  async playNow() {
    const button = $("#play-now");
    button.disabled = true;
    try {
      const reply = await conn.request({
        type: "create_race", game: $("#game").value, max_entrants: 1, time_limit_s: SOLO_LIMIT_S, countdown_s: 0, join: true,
      });
      await conn.request({ type: "start_race", race: reply.race.code });
      navigate(`/r/${reply.race.code}`);
    } catch (err) {
      button.disabled = false;
      toast(err.reason || String(err));
    }
  }

  async create(form) {
    const data = new FormData(form);
    const seedText = String(data.get("seed") || "").trim();
    const message = {
      type: "create_race",
      game: $("#game").value,
      max_entrants: Number(data.get("entrants")) || 8,
      time_limit_s: Math.max(10, Math.round(Number(data.get("minutes") || 15) * 60)),
      countdown_s: Math.min(60, Math.max(0, Math.round(Number(data.get("countdown") ?? 3)))),
      winnable: data.get("winnable") === "on",
      join: true,
    };
    const rated = data.get("rated") === "on";
    if (rated) message.rated = true;
    if (seedText) {
      if (rated) { toast("a rated race is dealt a secret deal: leave the seed empty"); return; }
      if (!/^\d{1,19}$/.test(seedText)) { toast("a seed is a whole number"); return; }
      message.seed = BigInt(seedText) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(seedText) : BigInt(seedText);
    }
    try {
      let reply;
      try {
        reply = await conn.request(message);
      } catch (err) {
        // A secret winnable deal needs the server's private catalog; without one, a practice
        // deal from the public catalog (its seed public from the start) is the next best thing.
        if (err.code !== "no_private_catalog" || seedText || rated) throw err;
        reply = await conn.request({ ...message, seed_public: true });
        toast("no secret winnable deals on this server: a public practice deal instead", "info");
      }
      navigate(`/r/${reply.race.code}`);
    } catch (err) {
      toast(err.reason || String(err));
    }
  }
}
