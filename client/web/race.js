// A race's page: join it, play it, watch it, and what comes after (result, fair-deal check,
// rematch, replay, Double or Naught, the next deal of a tournament). This module holds the
// page's state and speaks to the server; race-view.js draws it.
//
// A move request may play several moves (docs/protocol.md, "Undo and assists"): the move and
// the safe moves auto-collect adds (`collect`), or the whole of a `finish`. Its answer has the
// board after them all; the page works the boards in between back from it and shows each move
// in turn (`stepsBack`), and numbers its next move from `next_seq`.

import { BoardView } from "./board.js";
import { BonusPanel } from "./bonus.js";
import { Celebration } from "./celebrate.js";
import { gameByKey, moveWords, parseTransfer } from "./cards.js";
import { store } from "./net.js";
import { renderRace, tickClock } from "./race-view.js";
import { ReplayPanel } from "./replay.js";
import { onSettings } from "./settings.js";
import { conn, navigate } from "./shell.js";
import { sound } from "./sound.js";
import { statusText } from "./standings.js";
import { announce, el, ordinal, toast } from "./ui.js";

/** ms: how long a row of the standings stays highlighted after its entrant finished. */
const FLASH_MS = 2500;
/** The words a move request may carry besides a move (docs/protocol.md). */
const ASSISTS = ["undo", "collect", "finish"];

/**
 * The boards after each of `moves`, the moves one request played (the first, then those of
 * `then`), worked back from `final`, the board after the last: each later move, a transfer,
 * is taken back (its cards return to their pile, and a card it turned up, `revealed`, lies face
 * down again). Just [final] when a later move is not a transfer.
 */
export function stepsBack(final, moves, revealed = []) {
  const boards = [final];
  const turned = new Set(revealed.map(([pile, index]) => `${pile}:${index}`));
  let piles = final.piles;
  for (let k = moves.length - 1; k >= 1; k--) {
    const t = parseTransfer(moves[k]);
    if (!t) return [final];
    const dst = [...(piles[t.dst] || [])];
    const moved = dst.splice(dst.length - t.count, t.count);
    const src = [...(piles[t.src] || [])];
    if (src.length && turned.has(`${t.src}:${src.length - 1}`)) src[src.length - 1] = "??";
    piles = { ...piles, [t.src]: [...src, ...moved], [t.dst]: dst };
    boards.unshift({ ...final, piles, legal: [], undo: false, decided: false, won: false, over: false });
  }
  return boards;
}

export class RacePage {
  constructor(main, code, watchOnly) {
    this.main = main;
    this.code = code;
    this.watchOnly = watchOnly;
    this.race = null;
    this.standings = [];
    this.version = 0;
    this.mine = null; // BoardView of my own board
    this.boards = new Map(); // spectator: player -> BoardView
    this.nextSeq = 1;
    this.pending = null; // {seq, move, ghost, before}
    this.finished = null; // the race_finished event
    this.verdict = null;
    this.startedAt = null; // server ms of the start
    this.timeLimit = 0;
    this.mode = "loading"; // "entrant" | "spectator" | "outsider"
    this.rematch = null;
    this.rematchAccepted = [];
    this.replay = null; // ReplayPanel while open
    this.bonus = null; // BonusPanel while open
    this.tournament = null; // TournamentInfo of a tournament's deal
    this.refusal = "";
    this.fairOpen = false;
    this.flash = new Map(); // player -> when its row stops being highlighted (it just finished)
    this.celebration = null; // Celebration while shown
    this.ticker = setInterval(() => tickClock(this), 250);
    this.build();
    this.off = conn.subscribe((m) => this.event(m), () => this.load(true));
    this.offSettings = onSettings(() => this.renderAll());
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
    this.load(false);
  }

  destroy() {
    clearInterval(this.ticker);
    this.off();
    this.offSettings();
    document.removeEventListener("keydown", this.onKey);
    if (this.celebration) this.celebration.close(false);
    if (this.mine) this.mine.destroy();
    for (const b of this.boards.values()) b.destroy();
    if (this.replay) this.replay.destroy();
    if (this.bonus) this.bonus.destroy();
  }

  build() {
    this.head = el("header", { class: "race-head" });
    this.notice = el("p", { class: "notice", id: "notice", role: "status" });
    this.actions = el("div", { class: "actions", id: "actions" });
    this.tableBox = el("div", { class: "boards", id: "boards" });
    this.side = el("aside", { class: "side", "aria-label": "standings" });
    this.keys = el("p", { class: "keys hint", id: "keys" });
    this.main.replaceChildren(el("section", { class: "race" }, this.head, el("div", { class: "race-bar" }, this.notice, this.actions),
      el("div", { class: "race-body" }, el("div", { class: "play-area" }, this.tableBox, this.keys), this.side)));
  }

  /** My player id (kept while the connection is down, so that moves made offline wait for it). */
  get me() { return conn.player ?? this.meId; }
  get game() { return gameByKey(this.race.game); }
  /** My line of the standings, or undefined. */
  get myLine() { return this.standings.find((s) => s.player === this.me); }
  /** True while I may move: an entrant still playing a running race. */
  get playing() { return this.mode === "entrant" && this.race.status === "running" && this.myLine?.status === "playing"; }

  async load(reconnected) {
    try {
      await conn.ready;
      if (this.watchOnly && this.mode !== "entrant") {
        const snap = await conn.request({ type: "watch", race: this.code });
        this.snapshot(snap, "spectator");
      } else {
        let since = reconnected ? this.version : 0;
        for (;;) {
          const reply = await conn.request({ type: "sync", race: this.code, since });
          if (reply.type === "sync_page") { since = reply.until; continue; }
          const mine = reply.standings.some((s) => s.player === this.me);
          const mode = mine ? "entrant" : reply.race.status === "open" ? "outsider" : "spectator";
          this.snapshot(reply, mode);
          break;
        }
        if (this.pending) this.resend();
      }
      if (this.race.tournament) await this.followTournament();
    } catch (err) {
      if (err.code === "offline") return;
      if (err.code === "not_allowed" && this.watchOnly) { navigate(`/r/${this.code}`, true); return; }
      const locked = err.code === "spoiler_locked" && err.opensAt
        ? `Locked while its deal may still be played: it cannot be watched, replayed or read until it opens at ${new Date(err.opensAt).toLocaleString([], { dateStyle: "medium", timeStyle: "short" })}.`
        : null;
      this.main.replaceChildren(el("section", { class: "card-box" }, el("h1", { text: `Race ${this.code}` }),
        el("p", { class: "error", id: "race-error", text: locked || err.reason || String(err) }), el("a", { href: "/", "data-link": true, text: "Back to the lobby" })));
    }
  }

  async followTournament() {
    try {
      const snap = await conn.request({ type: "follow_tournament", tournament: this.race.tournament });
      this.tournament = snap.tournament;
      this.tournamentStandings = snap.standings;
      this.renderAll();
    } catch (err) { /* the tournament left memory: the race page stands on its own */ }
  }

  snapshot(snap, mode) {
    this.meId = conn.player;
    this.race = snap.race;
    this.version = Math.max(this.version, snap.race.version);
    this.standings = snap.standings;
    this.mode = mode;
    this.rematch = snap.race.rematch || this.rematch;
    if (snap.race.status === "running" || snap.race.status === "finished") {
      this.startedAt = conn.serverNow() - snap.elapsed_ms;
      this.timeLimit = snap.race.time_limit_s * 1000;
    }
    if (mode === "entrant") {
      const waiting = this.pending && this.pending.seq >= snap.next_seq;
      this.nextSeq = waiting ? this.pending.seq : snap.next_seq;
      if (this.pending && !waiting) this.clearPending(); // it was played before the connection dropped
      if (snap.board) this.ensureMine().set(snap.board);
    } else if (snap.boards) {
      for (const [player, board] of Object.entries(snap.boards)) this.boardOf(player).set(board);
    }
    if (snap.race.status === "finished" && !this.finished) this.finishedFromSnapshot(snap);
    this.renderAll();
  }

  async finishedFromSnapshot(snap) {
    this.finished = { standings: snap.standings, seed: snap.race.seed, salt: null, commitment: snap.race.commitment, double_or_naught: [] };
    try {
      const record = await conn.request({ type: "get_record", race: this.code });
      this.finished.seed = record.seed;
      this.finished.salt = record.salt;
      await this.verify();
    } catch (err) { /* held seed (arena tournament) or gone: nothing to check yet */ }
    this.renderAll();
  }

  /** The height the main board may fill: the window below the board's top edge. */
  fitHeight(node) {
    if (this.boards.size > 1 && this.mode !== "entrant") return 0;
    const top = node.getBoundingClientRect().top + window.scrollY;
    return Math.max(0, window.innerHeight - top - 10);
  }

  ensureMine() {
    if (!this.mine) {
      this.mine = new BoardView(this.race.game, { onMove: (text, ghost) => this.move(text, ghost), label: "your board",
        fit: (node) => this.fitHeight(node) });
    }
    return this.mine;
  }

  boardOf(player) {
    if (!this.boards.has(player)) {
      this.boards.set(player, new BoardView(this.race.game, { label: `board of ${this.nameOf(player)}`, fit: (node) => this.fitHeight(node) }));
    }
    return this.boards.get(player);
  }

  // An entrant's board as spectators see it, unless the page shows a later one of it already
  // (more moves made): a delayed board has the version of its move's progress, not a newer one.
  spectatorBoard(player, board, move = "") {
    const view = this.boardOf(player);
    if (view.board && view.board.moves > board.moves) return;
    view.set(board, move ? { move } : null);
  }

  nameOf(player) { return (this.standings.find((s) => s.player === player) || {}).name || player; }

  // ---------------------------------------------------------------- events

  event(m) {
    if (m.type === "tournament_event") return this.tournamentEvent(m);
    if (m.race !== this.code || !this.race) return; // before the first snapshot: it will say all
    if (m.type === "delayed_board") { // not an event of its own: it has its progress's version
      if (this.mode !== "entrant") this.spectatorBoard(m.player, m.board, m.move);
      this.renderAll();
      return;
    }
    if (typeof m.version === "number") {
      // Older than what the page has: a frame the server held for a tick when the snapshot was
      // taken, or a sync page's event after a newer live one. Each event carries the whole
      // standings, so skipping it loses nothing (docs/protocol.md, Catching up).
      if (m.version <= this.version) return;
      this.version = m.version;
    }
    switch (m.type) {
      case "entrant_joined":
        if (!this.race.entrants.includes(m.name)) {
          this.race.entrants.push(m.name);
          if (this.race.claimed) this.race.claimed.push(m.claimed);
        }
        if (!this.standings.some((s) => s.player === m.player)) {
          this.standings.push({ place: this.standings.length + 1, player: m.player, name: m.name, cleared: 0, total: this.game.total,
            time_ms: 0, moves: 0, status: "waiting", order: m.order, points: 0, claimed: m.claimed });
        }
        if (m.player !== this.me) announce(`${m.name} joined the race`);
        break;
      case "race_starting":
        this.race.status = "starting";
        this.race.starts_at_ms = m.starts_at_ms;
        this.race.commitment = m.commitment;
        break;
      case "race_started":
        this.race.status = "running";
        this.startedAt = m.started_at_ms;
        this.timeLimit = m.time_limit_ms;
        if (this.mode === "entrant") this.ensureMine().set(m.board);
        else for (const s of this.standings) this.boardOf(s.player).set(m.board);
        for (const s of this.standings) s.status = "playing";
        announce("The race has started");
        break;
      case "progress":
        this.sayFinishes(m.standings);
        this.standings = m.standings;
        if (m.board && this.mode !== "entrant") this.spectatorBoard(m.player, m.board, m.move);
        break;
      case "race_finished": {
        this.race.status = "finished";
        this.standings = m.standings;
        this.finished = m;
        this.refusal = "";
        if (this.mine) this.mine.setBusy(false);
        const line = this.myLine;
        announce(line ? `The race is over: you are ${ordinal(line.place)}, ${line.cleared} of ${line.total} cards` : "The race is over");
        this.verify().then(() => this.renderAll());
        break;
      }
      case "race_par":
        this.race.par = m.par;
        break;
      case "rematch_offer":
        this.rematch = m.rematch;
        this.rematchAccepted = m.accepted;
        break;
      case "move_result":
        this.moveResult(m);
        break;
      default:
        return;
    }
    this.renderAll();
  }

  /** Announce each other entrant who has just stopped playing (won, stuck, resigned...), and
   * highlight its row of the standings for a moment. */
  sayFinishes(standings) {
    for (const s of standings) {
      const before = this.standings.find((o) => o.player === s.player);
      if (s.player !== this.me && before && before.status === "playing" && s.status !== "playing") {
        announce(`${s.name} ${statusText(s.status)} with ${s.cleared} of ${s.total} cards`);
        this.flash.set(s.player, Date.now() + FLASH_MS);
        setTimeout(() => this.renderAll(), FLASH_MS + 50);
      }
    }
  }

  /** The players whose rows are highlighted now. */
  get flashing() {
    const now = Date.now();
    for (const [player, until] of this.flash) if (until <= now) this.flash.delete(player);
    return new Set(this.flash.keys());
  }

  tournamentEvent(m) {
    if (!this.race || m.tournament.id !== this.race.tournament) return;
    this.tournament = m.tournament;
    if (m.standings && m.standings.length) this.tournamentStandings = m.standings;
    const entered = (this.tournamentStandings || []).some((s) => s.player === this.me && s.status !== "withdrawn");
    if (m.kind === "deal_started" && m.race && m.race !== this.code && m.deal > this.race.deal
        && entered && this.tournament.format === "rounds") {
      toast(`Deal ${m.deal + 1} has started`, "info");
      navigate(`/r/${m.race}`);
      return;
    }
    this.renderAll();
  }

  // ---------------------------------------------------------------- moves

  /** Play `text`: a move in notation, or "undo", "collect" or "finish"; `ghost`: the cards the
   * player dragged. Auto-collect (a setting) asks the server to follow it with the safe moves. */
  move(text, ghost) {
    if (this.pending || !this.playing) {
      if (ghost) this.mine.snapBack(ghost);
      return;
    }
    this.refusal = "";
    this.notice.textContent = "";
    const collect = store.autoCollect && !ASSISTS.includes(text);
    this.pending = { seq: this.nextSeq, move: text, collect, ghost, before: this.mine.latest };
    this.nextSeq += 1;
    this.mine.setBusy(true);
    this.resend();
    this.renderAll();
  }

  resend() {
    if (!this.pending) return;
    const { seq, move, collect } = this.pending;
    conn.send({ type: "move", race: this.code, seq, move, collect });
  }

  undo() { this.move("undo", null); }

  /** U, or Ctrl+Z (Cmd+Z), takes back the last move where the race allows undo; a refused one
   * says why. Not while typing, nor under a dialog. */
  key(event) {
    if (!this.race || !this.race.undo || !this.playing || event.altKey || event.repeat) return;
    const ctrl = event.ctrlKey || event.metaKey;
    const wanted = ((event.key === "u" || event.key === "U") && !ctrl) || ((event.key === "z" || event.key === "Z") && ctrl && !event.shiftKey);
    if (!wanted) return;
    const target = event.target;
    if (target && target.closest && target.closest("input, textarea, select, [contenteditable], dialog")) return;
    if (document.querySelector("dialog[open]:modal")) return;
    event.preventDefault();
    this.undo();
  }

  clearPending() {
    if (this.pending && this.pending.ghost) this.pending.ghost.remove();
    this.pending = null;
    if (this.mine) this.mine.setBusy(false);
  }

  moveResult(m) {
    if (!this.pending || m.seq !== this.pending.seq) return;
    const { ghost, before } = this.pending;
    if (m.ok) {
      this.pending = null;
      this.mine.setBusy(false);
      const then = m.then || [];
      this.nextSeq = m.next_seq || m.seq + 1 + then.length;
      if (!m.board) { if (ghost) ghost.remove(); return; }
      const moves = [m.move, ...then];
      const boards = stepsBack(m.board, moves, m.revealed);
      sound(["deal", "redeal", "turn"].includes(m.move) ? "deal" : "move");
      announce(this.said(moves, before, boards, m));
      this.mine.sequence(boards, moves, { ghost, done: () => this.landed(before, m.board) });
      if (ghost) ghost.remove();
      return;
    }
    this.pending = null;
    this.nextSeq = m.seq; // a refusal uses up no sequence number
    this.mine.setBusy(false);
    this.refusal = m.reason ? m.reason[0].toUpperCase() + m.reason.slice(1) : "That move is not allowed";
    sound("refuse");
    if (ghost) this.mine.snapBack(ghost);
    else this.mine.set(this.mine.board);
  }

  /** A request's moves in words: the first, what followed it, and whether the win is now forced. */
  said(moves, before, boards, m) {
    const game = this.game;
    let text = m.move === "undo" ? "Move taken back" : moveWords(game, moves[0], before, m.revealed);
    const more = moves.slice(1);
    if (more.length > 4) text += `; then ${more.length} more cards to the foundations`;
    else if (more.length) text += `; then ${more.map((move, k) => moveWords(game, move, boards[k])).join("; ")}`;
    if (m.board.won) text += ". You won!";
    else if (m.board.decided && !(before && before.decided)) text += ". Every card is face up: Finish plays the win.";
    return text;
  }

  /** After a request's moves are all shown: the win, if it won. */
  landed(before, board) {
    this.renderAll();
    if (!board.won || (before && before.won)) return;
    sound("win");
    this.celebrate();
  }

  celebrate() {
    if (this.celebration) return;
    this.celebration = new Celebration(this);
    this.renderAll();
  }

  closeCelebration() {
    if (!this.celebration) return;
    this.celebration.close(true);
    this.celebration = null;
    this.renderAll();
  }

  /** Send a race request; `then(reply)` on success, a toast with the reason otherwise. */
  async action(message, then) {
    try {
      const reply = await conn.request({ ...message, race: this.code });
      if (then) then(reply);
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  /** Join the race, under the name typed beside the button when the player changed it. */
  async join(name) {
    name = (name || "").trim();
    try {
      if (name && name !== conn.name) await conn.rename(name);
      else store.nameChosen = true;
      await conn.request({ type: "join_race", race: this.code });
      await this.load(false);
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  async openNextDeal() {
    try {
      const reply = await conn.request({ type: "open_deal", tournament: this.race.tournament });
      navigate(`/r/${reply.race.code}`);
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  // ---------------------------------------------------------------- fairness

  async verify() {
    const f = this.finished;
    if (!f || f.seed === null || f.seed === undefined || !f.salt) { this.verdict = null; return; }
    const bytes = new TextEncoder().encode(`${String(f.seed)}:${f.salt}`);
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    this.verdict = { ok: hex === f.commitment, hex };
  }

  // ---------------------------------------------------------------- panels

  openReplay() {
    if (this.replay) return;
    const players = this.standings.map((s) => s.player);
    this.replay = new ReplayPanel(this, players.includes(this.me) ? this.me : players[0]);
    this.renderAll();
    this.replay.show(0);
  }

  closeReplay() {
    if (!this.replay) return;
    this.replay.destroy();
    this.replay = null;
    this.renderAll();
    document.querySelector("#replay")?.focus();
  }

  openBonus() {
    if (!this.bonus) this.bonus = new BonusPanel(this);
    this.bonus.start();
  }

  closeBonus() {
    if (!this.bonus) return;
    this.bonus.destroy();
    this.bonus = null;
    this.renderAll();
  }

  renderAll() {
    if (!this.race) return;
    if (this.mine) this.mine.setPlaying(this.playing);
    renderRace(this);
    if (this.celebration) this.celebration.render();
  }
}
