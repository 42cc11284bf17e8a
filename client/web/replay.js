// Replaying a finished race move by move, beside the page's other controls: pick an entrant,
// step with the buttons or the slider, read each move in words, and close it to go back.

import { BoardView } from "./board.js";
import { moveWords } from "./cards.js";
import { conn } from "./shell.js";
import { clockText, el, icon, toast } from "./ui.js";

export class ReplayPanel {
  /** A replay of `page`'s race (a RacePage), starting with entrant `player`'s deal. */
  constructor(page, player) {
    this.page = page;
    this.player = player;
    this.step = 0;
    this.steps = 0;
    this.boards = new Map(); // step -> board, for the words of the next step
    this.view = new BoardView(page.race.game, { label: "replay" });
    this.slider = el("input", { type: "range", min: 0, max: 0, value: 0, id: "replay-step", "aria-label": "move number" });
    this.caption = el("p", { class: "caption", id: "replay-caption", "aria-live": "polite" });
    const players = page.standings.map((s) => s.player);
    const pick = el("select", { id: "replay-player", "aria-label": "whose moves" },
      players.map((p) => el("option", { value: p, text: page.nameOf(p), selected: p === player })));
    pick.addEventListener("change", () => { this.player = pick.value; this.boards.clear(); this.show(0); });
    this.slider.addEventListener("input", () => this.show(Number(this.slider.value)));
    const button = (name, id, label, go) => el("button", { type: "button", class: "icon-button", id, "aria-label": label, title: label, onclick: go }, icon(name));
    this.node = el("section", { class: "board-box replay", "aria-label": "replay" },
      el("div", { class: "replay-head" }, el("h2", { text: "Replay" }), pick,
        el("button", { type: "button", class: "close", id: "replay-close", onclick: () => page.closeReplay() }, icon("close"), "Close replay")),
      el("div", { class: "replay-controls" },
        button("first", "replay-first", "the deal", () => this.show(0)),
        button("back", "replay-back", "previous move", () => this.show(this.step - 1)),
        this.slider,
        button("next", "replay-next", "next move", () => this.show(Math.min(this.steps, this.step + 1))),
        button("last", "replay-last", "last move", () => this.show(this.steps))),
      this.caption, this.view.node);
  }

  destroy() { this.view.destroy(); }

  /** Show the board after move `n` (0: the deal), with the move in words. */
  async show(n) {
    try {
      const r = await conn.request({ type: "replay", race: this.page.code, player: this.player, step: Math.max(0, n) });
      this.step = r.step;
      this.steps = r.steps;
      this.boards.set(r.step, r.board);
      this.slider.max = r.steps;
      this.slider.value = r.step;
      const words = r.said || moveWords(this.view.game, r.move, this.boards.get(r.step - 1));
      this.caption.textContent = r.step ? `Move ${r.step} of ${r.steps}, at ${clockText(r.time_ms)}: ${words}`
        : `The deal (${r.steps} ${r.steps === 1 ? "move" : "moves"} in all)`;
      this.view.set(r.board);
    } catch (err) { toast(err.reason || String(err)); }
  }
}
