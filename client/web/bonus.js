// Double or Naught, the bonus round a winner of a casual race may play on its points
// (docs/games/double_or_naught.md): the rule in one sentence, a confirmation before anything is
// staked, cards to tap (or buttons naming them), and each outcome said in words.

import { BoardView } from "./board.js";
import { actionLabel, cardName } from "./cards.js";
import { conn } from "./shell.js";
import { announce, ask, el, toast } from "./ui.js";

const RULE = "Pick one of the five face-down cards. If it is higher than the house card (Kings high, Aces low, "
  + "suits do not count) your points double; if it is lower you lose them all; the same rank lets you try again.";

export class BonusPanel {
  constructor(page) {
    this.page = page;
    this.reply = null;
    this.view = null;
    this.node = el("section", { class: "card-box bonus", id: "bonus", "aria-labelledby": "bonus-title" });
  }

  destroy() { if (this.view) this.view.destroy(); }

  /** My points now: the last round's, else the standings'. */
  get points() {
    if (this.reply) return this.reply.points;
    const line = this.page.myLine;
    return line ? line.points : 0;
  }

  /** Offer a stake: the rule, the points at stake and the two choices. */
  start() {
    this.render();
    this.page.renderAll();
  }

  async stake() {
    const points = this.points;
    const sure = await ask({ title: `Stake ${points} points?`, text: "If your card is lower than the house card you lose them all.",
      yes: `Stake ${points} points`, no: "Keep my points", id: "bonus-ask" });
    if (!sure) return;
    await this.send({ type: "double_or_naught", race: this.page.code });
  }

  async play(move) {
    await this.send({ type: "bonus_move", race: this.page.code, move });
  }

  async send(message) {
    try {
      const before = this.reply;
      this.reply = await conn.request(message);
      if (!this.view) this.view = new BoardView("double_or_naught", { onMove: (text) => this.play(text), label: "Double or Naught" });
      this.view.set(this.reply.board);
      if (before !== this.reply) announce(this.said());
      this.render();
      this.page.renderAll();
    } catch (err) {
      toast(err.reason || String(err));
    }
  }

  /** The round's state in words: what to do, or what the guess turned up and what it meant. */
  said() {
    const r = this.reply;
    if (!r) return "";
    const piles = r.board.piles;
    const house = cardName(piles.r5[piles.r5.length - 1]);
    const guessed = ["r0", "r1", "r2", "r3", "r4"].map((p) => piles[p][piles[p].length - 1]).find((c) => c && c !== "??");
    const turned = guessed ? `You turned the ${cardName(guessed)} against the house's ${house}: ` : "";
    return {
      win: `${turned}higher. You won: your stake of ${r.stake} is doubled to ${r.points} points.`,
      loss: `${turned}lower. You lost the stake: no points left.`,
      tie: `${turned}the same rank, a tie. Deal again to try once more.`,
    }[r.outcome] || `Round ${r.round}: ${r.stake} points at stake. Pick a card to beat the house's ${house}.`;
  }

  render() {
    const r = this.reply;
    const parts = [el("h2", { id: "bonus-title", text: r ? `Double or Naught, round ${r.round}` : "Double or Naught" }),
      el("p", { class: "rule", text: RULE })];
    if (!r || (r.decided && r.outcome === "win")) {
      parts.push(el("p", { id: "bonus-state" }, r ? this.said() + " " : "", "Your points: ", el("strong", { id: "bonus-points", text: this.points })));
      parts.push(el("div", { class: "actions" },
        el("button", { class: "primary", id: r ? "double-again" : "bonus-stake", text: r ? `Stake ${this.points} points again` : `Stake ${this.points} points`,
          onclick: () => this.stake() }),
        el("button", { id: "bonus-keep", text: "Keep my points", onclick: () => this.page.closeBonus() })));
    } else {
      parts.push(el("p", { id: "bonus-state" }, this.said(), " Points now: ", el("strong", { id: "bonus-points", text: r.points })));
      const moves = r.decided ? [] : r.board.legal;
      parts.push(el("div", { class: "actions" }, moves.map((m) => el("button", { class: "move", dataset: { move: m },
        text: actionLabel(this.view.game, m, r.board), onclick: () => this.play(m) })),
      r.decided ? el("button", { id: "bonus-close", text: "Close", onclick: () => this.page.closeBonus() }) : null));
    }
    if (this.view && r) parts.push(this.view.node);
    this.node.replaceChildren(...parts);
    if (this.view) this.view.draw();
  }
}
