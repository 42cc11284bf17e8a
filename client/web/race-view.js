// Drawing a race's page (race.js holds its state): a compact header with the clock and the
// fair-deal badge, the controls that apply now, the boards, and the standings beside them.

import { actionLabel, exchangeCanWin, parseTransfer, pileName, slotOf } from "./cards.js";
import { store } from "./net.js";
import { conn, navigate } from "./shell.js";
import { standingsTable, statusText, undosText } from "./standings.js";
import { $, ask, clockText, el, icon, toast } from "./ui.js";

/** Update the clock: the countdown, the race time against its limit, or the race's state. */
export function tickClock(page) {
  const race = page.race;
  const clock = $("#clock");
  if (!race || !clock) return;
  const now = conn.serverNow();
  let text = "Waiting for the start", kind = "clock";
  if (race.status === "starting" && race.starts_at_ms) {
    const left = race.starts_at_ms - now;
    text = left > 0 ? `Starts in ${Math.ceil(left / 1000)}` : "Go!";
    kind = "clock countdown";
  } else if (race.status === "running" && page.startedAt) {
    text = `${clockText(now - page.startedAt)} / ${clockText(page.timeLimit)}`;
    kind = "clock running";
  } else if (race.status === "finished") {
    text = "Finished";
  }
  if (clock.textContent !== text) clock.textContent = text;
  clock.className = kind;
  const next = $("#next-deal-time");
  if (next && page.tournament && page.tournament.next_deal_ms) {
    next.textContent = clockText(Math.max(0, page.tournament.next_deal_ms - now));
  }
}

export function renderRace(page) {
  renderHead(page);
  tickClock(page);
  renderNotice(page);
  renderActions(page);
  renderBoards(page);
  renderSide(page);
  page.keys.hidden = !page.playing;
  page.keys.textContent = page.playing ? keysText(page) : "";
}

/** How to play by pointer and by keyboard, as the settings make it. */
function keysText(page) {
  const undo = page.race.undo ? " U (or Ctrl+Z) takes a move back," : "";
  if (store.tapToMove) {
    return "Tap a card to send it to its best place (tap it again for the next place), or drag it. Keys: Tab or "
      + "the arrows go from pile to pile, Enter plays the pile's card, Space picks up a card and puts it down, "
      + `D deals,${undo} Esc lets go.`;
  }
  return "Tap a card, then where it goes, or drag it; a double tap sends a card to a foundation. Keys: Tab or the "
    + `arrows go from pile to pile, Enter picks up a card and puts it down, D deals,${undo} Esc lets go.`;
}

/** The line under the header: a refused move's reason, or, when my board has no move left but
 * one to take back, what I can do. */
function renderNotice(page) {
  const board = page.mine && page.mine.latest;
  const stuck = !page.refusal && page.playing && board && !page.pending && !board.legal.length && board.undo;
  const text = page.refusal || (stuck ? "No moves left: undo, or resign" : "");
  if (page.notice.textContent !== text) page.notice.textContent = text;
  page.notice.classList.toggle("info", Boolean(stuck));
  page.notice.hidden = !text;
}

function renderHead(page) {
  const race = page.race, game = page.game, t = page.tournament;
  const link = `${location.origin}/r/${race.code}`;
  const deal = race.tournament ? el("a", { class: "chip", id: "tournament-link", href: `/t/${race.tournament}`, "data-link": true },
    `Deal ${race.deal + 1}${t ? ` of ${t.deals} · ${t.name}` : ""}`) : null;
  const checked = page.verdict && page.verdict.ok;
  const badge = race.commitment ? el("button", {
    type: "button", id: "fair-badge", class: `fair-badge${checked ? " ok" : ""}${page.verdict && !checked ? " bad" : ""}`,
    "aria-expanded": page.fairOpen ? "true" : "false", "aria-controls": "fair-panel",
    onclick: () => { page.fairOpen = !page.fairOpen; renderHead(page); },
  }, icon("shield"), checked ? "Fair deal: checked" : page.verdict ? "Deal not trusted" : "Fair deal") : null;
  const meta = [race.seed !== null && race.seed !== undefined ? `Seed ${String(race.seed)}` : "Secret seed",
    `${race.entrants.length}/${race.max_entrants} ${race.max_entrants === 1 ? "entrant" : "entrants"}`,
    `${clockText(race.time_limit_s * 1000)} limit`];
  if (race.spectating && race.spectating !== "live") meta.push("spectators see the boards when the deal is over");
  else if (race.spectator_delay_s) meta.push(`spectators ${race.spectator_delay_s} s behind`);
  const f = page.finished;
  const panel = race.commitment ? el("div", { class: "fair-panel", id: "fair-panel", hidden: !page.fairOpen },
    el("p", {}, "Before anyone played, the server published a commitment: the SHA-256 hash of the deal's seed and a "
      + "secret salt. At the end it reveals both, and your browser checks that they give the same hash, so the deal "
      + "could not have been changed."),
    el("p", { class: "commitment" }, "Commitment ", el("code", { id: "commitment", text: race.commitment })),
    f ? el("p", { class: "reveal" }, f.seed !== null && f.seed !== undefined ? `Seed ${String(f.seed)}` : "The seed is revealed when the tournament ends.",
      f.salt ? el("span", {}, ", salt ", el("code", { text: f.salt })) : null) : null,
    page.verdict ? el("p", { id: "fairness", class: page.verdict.ok ? "fair ok" : "fair bad" },
      page.verdict.ok ? "✔ Checked in your browser: SHA-256(seed:salt) matches the commitment published at the start. The deal was fixed before anyone played."
        : `✘ SHA-256(seed:salt) is ${page.verdict.hex}, not the commitment: this deal cannot be trusted.`) : null) : null;
  page.head.replaceChildren(...[
    el("div", { class: "head-row" },
      el("h1", {}, `${game.name} `, el("span", { class: "code", id: "race-code", text: race.code })),
      deal,
      race.rated ? el("span", { class: "chip rated", id: "rated-badge", title: "This race moves its claimed entrants' ratings", text: "Rated" }) : null,
      el("div", { class: "clock", id: "clock" }),
      badge,
      el("a", { class: "rules-link", href: game.rules, target: "_blank", rel: "noopener", text: "Rules" })),
    el("p", { class: "meta", id: "meta", text: meta.join(" · ") }),
    race.status === "open" && !race.tournament ? el("p", { class: "share" }, el("label", { for: "share-link", text: "Invite: " }),
      el("input", { readonly: true, value: link, id: "share-link", onfocus: (e) => e.target.select() }),
      el("button", { type: "button", text: "Copy", onclick: () => navigator.clipboard?.writeText(link).then(() => toast("link copied", "info"), () => {}) })) : null,
    panel].filter(Boolean));
}

/** The moves that are not transfers, as buttons will show them. Clock's exchanges: a note that only
 * a pile's bottom card can still win, pushed onto `buttons`, and only those exchanges, the piles
 * with the most face-down cards first (the others stay playable by a click on a face-down card). */
function clockExchangesFirst(board, buttons) {
  const moves = board.legal.filter((m) => !parseTransfer(m));
  const exchanges = moves.filter((m) => m.startsWith("exchange "));
  if (!exchanges.length) return moves;
  buttons.push(el("p", { class: "exchange-note", id: "exchange-note",
    text: "Exchange the fourth King with a pile's bottom card: only a bottom card can still win (put back any higher, "
      + "the King turns up before the cards under it), and the more face-down cards the pile has, the better your chance." }));
  const down = (m) => (board.piles[m.split(" ")[1].split(".")[0]] || []).filter((c) => c === "??").length;
  return [...moves.filter((m) => !m.startsWith("exchange ")), ...exchanges.filter(exchangeCanWin).sort((a, b) => down(b) - down(a))];
}

/** A Clock exchange button's words, short enough for a phone: the pile and how many face-down
 * cards it has ("The 5 o'clock pile (4 face down)"); the note above the buttons says the rest. */
function exchangeLabel(game, move, board) {
  const pile = move.split(" ")[1].split(".")[0];
  const down = (board.piles[pile] || []).filter((c) => c === "??").length;
  const name = pileName(game, pile);
  return `${name[0].toUpperCase()}${name.slice(1)} (${down} face down)`;
}

function renderActions(page) {
  const race = page.race, mine = page.myLine, buttons = [];
  if (page.mode === "outsider" && race.status === "open") {
    const name = el("input", { id: "join-name", value: conn.name || store.name, maxlength: 32, autocomplete: "nickname" });
    if (!store.nameChosen) buttons.push(el("label", { class: "join-name" }, "Your name ", name));
    buttons.push(el("button", { class: "primary", id: "join", text: "Join this race", onclick: () => page.join(store.nameChosen ? "" : $("#join-name").value) }));
    buttons.push(el("a", { class: "button", href: `/w/${race.code}`, "data-link": true, text: "Watch" }));
  }
  if (page.mode === "entrant" && race.status === "open") {
    if (race.creator === page.me) {
      buttons.push(el("button", { class: "primary", id: "start", text: "Start the race",
        onclick: () => page.action({ type: "start_race" }, (r) => { page.race = r.race; page.renderAll(); }) }));
    } else buttons.push(el("span", { class: "muted", text: "Waiting for the creator to start the race." }));
  }
  if (page.playing && page.mine && page.mine.latest && !page.replay) {
    const board = page.mine.latest;
    if (board.decided) {
      buttons.push(el("button", { class: "primary", id: "finish", text: "Finish", title: "Every card is face up: play the win",
        onclick: () => page.move("finish", null), disabled: !!page.pending }));
    }
    for (const move of clockExchangesFirst(board, buttons)) {
      const exchange = move.startsWith("exchange ");
      buttons.push(el("button", { class: exchange ? "move exchange" : "move", dataset: { move },
        text: exchange ? exchangeLabel(page.game, move, board) : actionLabel(page.game, move, board),
        "aria-describedby": exchange ? "exchange-note" : null,
        onclick: () => page.move(move, null), disabled: !!page.pending }));
    }
    if (page.race.undo) {
      buttons.push(el("button", { id: "undo", "aria-keyshortcuts": "U Control+Z Meta+Z", title: "Take back the last move (U)",
        onclick: () => page.undo(), disabled: !!page.pending || !board.undo }, icon("undo"), "Undo"));
    }
    const toFoundation = board.legal.some((m) => { const t = parseTransfer(m); return t && slotOf(page.game, t.dst)?.kind === "foundation"; });
    if (!store.autoCollect && !board.decided && toFoundation) {
      buttons.push(el("button", { id: "collect", text: "Collect", title: "Send every card that nothing can need to the foundations",
        onclick: () => page.move("collect", null), disabled: !!page.pending }));
    }
    buttons.push(el("button", { class: "danger", id: "resign", text: "Resign", onclick: async () => {
      if (await ask({ title: "Resign from this race?", text: "Your cards cleared so far still count.", yes: "Resign", no: "Keep playing", id: "resign-ask" })) {
        page.action({ type: "resign" });
      }
    } }));
  }
  if (race.status === "finished" && page.mode === "entrant" && !race.tournament) {
    const joined = page.rematchAccepted.includes(page.me);
    if (page.rematch && joined) {
      buttons.push(el("a", { class: "button primary", id: "go-rematch", href: `/r/${page.rematch}`, "data-link": true, text: "Go to the rematch" }));
    } else {
      buttons.push(el("button", { class: "primary", id: "rematch", text: page.rematch ? "Accept the rematch" : "Rematch",
        onclick: () => page.action({ type: "rematch" }, (r) => navigate(`/r/${r.race.code}`)) }));
    }
    if (page.rematch && page.rematchAccepted.length) {
      buttons.push(el("span", { class: "accepted", id: "rematch-accepted", text: `Rematch accepted by ${page.rematchAccepted.map((p) => page.nameOf(p)).join(", ")}` }));
    }
    const winner = (page.finished && (page.finished.double_or_naught || []).includes(page.me)) || (mine && mine.status === "won" && mine.points > 0);
    if (winner && !page.bonus) {
      buttons.push(el("button", { id: "double", text: "Double or Naught…", onclick: () => page.openBonus() }));
    }
  }
  if (race.status === "finished" && !page.replay) {
    buttons.push(el("button", { id: "replay", text: "Replay", onclick: () => page.openReplay() }));
  }
  if (page.mode === "entrant" && race.status === "running" && mine && mine.status !== "playing") {
    buttons.push(el("a", { class: "button", href: `/w/${race.code}`, "data-link": true, text: "Watch the others" }));
  }
  buttons.push(el("a", { class: "button quiet", href: "/", "data-link": true, text: "Lobby" }));
  // (drawn anew on every event: the focused control keeps the focus)
  const focused = page.actions.contains(document.activeElement) ? document.activeElement : null;
  const key = focused && (focused.id || focused.dataset.move);
  const shown = keepSame(page.actions, buttons);
  if (key && !page.actions.contains(document.activeElement)) {
    shown.find((b) => (b.id || b.dataset.move) === key && !b.disabled)?.focus();
  }
}

/**
 * Show `nodes` as `parent`'s children, keeping in place each child drawn exactly as its new one
 * (the same markup), so that a press begun on a control survives a redraw (an opponent's move
 * arriving between the finger down and up). A control's handler depends only on what its markup
 * shows (its move) and on the page, so a kept one does what the new one would. Returns the
 * children now shown.
 */
function keepSame(parent, nodes) {
  const old = new Map();
  for (const child of parent.children) {
    const same = old.get(child.outerHTML) || [];
    old.set(child.outerHTML, [...same, child]);
  }
  const shown = nodes.map((node) => old.get(node.outerHTML)?.shift() || node);
  shown.forEach((node, i) => {
    const at = parent.children[i];
    if (at !== node) parent.insertBefore(node, at || null);
  });
  while (parent.children.length > shown.length) parent.lastElementChild.remove();
  return shown;
}

// The boards, in boxes kept from one drawing to the next (moving a focused node would blur it).
function renderBoards(page) {
  page.boxes = page.boxes || new Map();
  const box = (key, make) => { if (!page.boxes.has(key)) page.boxes.set(key, make()); return page.boxes.get(key); };
  const boxes = [];
  if (page.bonus) boxes.push(page.bonus.node);
  if (page.replay) {
    boxes.push(page.replay.node);
  } else if (page.mode === "entrant" && page.mine) {
    boxes.push(box("mine", () => el("div", { class: "board-box mine" }, page.mine.node)));
  } else if (page.mode === "spectator" || (page.mode === "outsider" && page.boards.size)) {
    for (const s of page.standings) {
      if (!page.boards.has(s.player)) continue;
      const view = page.boards.get(s.player);
      const b = box(s.player, () => el("div", { class: "board-box", dataset: { player: s.player } }, el("h2", { class: "board-title" }), view.node));
      b.firstChild.replaceChildren(el("span", { class: "name", text: s.name }),
        el("span", { class: "muted", text: ` ${s.cleared}/${s.total} · ${s.moves} ${s.moves === 1 ? "move" : "moves"}`
          + `${s.undos ? ` (${undosText(s.undos)})` : ""} · ${statusText(s.status, page.race.game)}` }));
      boxes.push(b);
    }
  } else if (page.race.status === "open") {
    boxes.push(box("waiting", () => el("p", { class: "waiting", text: "The deal is dealt when the race starts." })));
  }
  page.tableBox.classList.toggle("many", boxes.length > 1 && !page.bonus);
  const current = [...page.tableBox.children];
  if (current.length !== boxes.length || current.some((node, i) => node !== boxes[i])) page.tableBox.replaceChildren(...boxes);
  if (page.mine) page.mine.draw();
  for (const view of page.boards.values()) view.draw();
}

/** Whether the standings show ratings: not while I play the race with "Hide ratings while
 * playing" on (settings.js); again once it is over. */
function ratingsShown(page) {
  return !(store.hideRatings && page.mode === "entrant" && page.race.status !== "finished");
}

function renderSide(page) {
  const race = page.race;
  const parts = [el("h2", { text: race.status === "finished" ? "Result" : "Standings" }),
    standingsTable(page.standings, page.me, { points: race.status === "finished", game: race.game, flash: page.flashing, ratings: ratingsShown(page) })];
  if (race.status === "finished" && race.par) {
    const par = race.par;
    const said = { won: `a win was possible (${par.total}/${par.total})`, lost: `no win was possible: at most ${par.best_cleared}/${par.total}`,
      unknown: `at least ${par.best_cleared}/${par.total} could be cleared (the solver stopped after ${par.nodes.toLocaleString()} moves)` }[par.result];
    parts.push(el("p", { id: "par", class: "par" }, el("strong", { text: "Par: " }), said));
  }
  if (race.status === "finished" && page.verdict) {
    parts.push(el("p", { class: `fair-line ${page.verdict.ok ? "ok" : "bad"}` }, page.verdict.ok
      ? "✔ Fair deal: checked in your browser." : "✘ The revealed seed does not match the commitment."));
  }
  const next = nextDeal(page);
  if (next) parts.push(next);
  page.side.replaceChildren(...parts);
}

/** After a tournament's deal: when the next one starts (with a countdown), a way to it, and the
 * way back to the tournament. */
function nextDeal(page) {
  const race = page.race, t = page.tournament;
  if (!race.tournament || !t || race.status !== "finished") return null;
  const back = el("a", { class: "button", id: "tournament-back", href: `/t/${t.id}`, "data-link": true, text: `Back to ${t.name}` });
  const after = race.deal + 1;
  const lines = [];
  const entered = (page.tournamentStandings || []).some((s) => s.player === page.me && s.status !== "withdrawn");
  if (t.status === "finished" || t.status === "cancelled") {
    lines.push(el("p", { text: t.status === "finished" ? "That was the last deal: the tournament is over." : "The tournament was cancelled." }));
  } else if (t.format === "rounds" && t.races.length > after) {
    lines.push(el("p", {}, `Deal ${after + 1} of ${t.deals} has started. `),
      el("a", { class: "button primary", id: "next-deal-go", href: `/${entered ? "r" : "w"}/${t.races[after]}`, "data-link": true,
        text: entered ? `Play deal ${after + 1}` : `Watch deal ${after + 1}` }));
  } else if (t.format === "rounds" && t.next_deal_ms && after < t.deals) {
    lines.push(el("p", {}, `Deal ${after + 1} of ${t.deals} starts in `, el("strong", { id: "next-deal-time" }), "."));
  } else if (t.format === "arena" && entered && t.status === "running" && after < t.deals) {
    lines.push(el("button", { class: "primary", id: "next-deal-play", text: `Play deal ${after + 1}`, onclick: () => page.openNextDeal() }));
  } else if (after >= t.deals) {
    lines.push(el("p", { text: "That was the last deal: the final standings come when every entrant has played it." }));
  }
  return el("section", { class: "next-deal", id: "next-deal", "aria-label": "the next deal" }, ...lines, back);
}
