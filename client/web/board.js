// One board, drawn from its game's layout (engine/layout.py via /api/games) and played by
// click, drag or keyboard. The board knows no rules: the moves it offers are exactly the legal
// moves the server lists in the player's board (`board.legal`), and a move it is not sure of
// goes to the server, which says why not.
//
// With Tap to move (settings.js) a tap on a card, or Enter on a pile, plays the card (and the
// cards on it, where the move takes a block) to its best place: a foundation first, then the
// other places in the order of the board's legal moves; tapping it again at once sends it on to
// the next place of that list. Off, a tap picks a card up and a second tap puts it down. Space
// always picks up, and dragging works either way.

import { cardName, cardNode, exchangeCanWin, gameByKey, parseTransfer, pileName, slotOf, transferText } from "./cards.js";
import { plan } from "./geometry.js";
import { fly, measure, shake } from "./motion.js";
import { store } from "./store.js";
import { motionOn } from "./settings.js";
import { sound } from "./sound.js";
import { announce, ask, el, toast } from "./ui.js";

const STOCK_ACTIONS = ["deal", "redeal", "turn"];
/** ms: a second tap within this long of the first sends the card on to its next place. */
const CYCLE_MS = 4000;
/** ms: how long a card travels; each of a request's further moves (auto-collect, finish). */
export const MOVE_MS = 200;
export const STEP_MS = 110;

/**
 * A board view. Options: `onMove(text, ghost)` makes it playable (`ghost`: the dragged cards,
 * to send back if the move is refused); `label` names it for screen readers; `fit()` returns
 * the height in px the table may fill (0 or none: as tall as its layout needs).
 */
export class BoardView {
  constructor(game, { onMove = null, label = "", fit = null } = {}) {
    this.game = gameByKey(game);
    this.onMove = onMove;
    this.fit = fit;
    this.label = label || this.game.name;
    this.board = null;
    this.selected = null; // {pile, count}
    this.cycle = null; // the last tap: {code, count, list, from, pile, until}
    this.busy = false;
    this.steps = []; // timers of a sequence of boards being shown (`sequence`)
    this.sequenceDone = null;
    this.final = null; // the last board of that sequence
    this.flightEnd = 0; // when the cards in flight land (performance.now() ms)
    this.playing = Boolean(onMove);
    this.node = el("div", { class: "table", role: "group", "aria-label": this.label });
    this.node.addEventListener("click", (e) => this.click(e));
    this.node.addEventListener("dblclick", (e) => this.doubleClick(e));
    this.node.addEventListener("keydown", (e) => this.key(e));
    this.node.addEventListener("pointerdown", (e) => this.pointerDown(e));
    this.width = 0;
    this.resize = new ResizeObserver(() => { if (this.node.clientWidth !== this.width) this.draw(); });
    this.resize.observe(this.node);
  }

  destroy() { this.resize.disconnect(); this.stopSequence(); }

  /** True while the player may move on this board (a playable board whose entrant plays). */
  get interactive() { return Boolean(this.onMove) && this.playing; }
  get legal() { return (this.board && this.interactive && !this.busy && !this.steps.length && this.board.legal) || []; }
  get transfers() { return this.legal.map(parseTransfer).filter(Boolean); }

  /** The board as it is now: the last of a sequence being shown, else the board shown. */
  get latest() { return this.final || this.board; }

  /** Show `board` ({piles, legal, ...} as the server sends it). `how`: `move` (the move that
   * led to it, in notation: its cards travel there, when motion is on) and `ghost` (the dragged
   * cards it started from). Ends any sequence being shown. */
  set(board, how = null) {
    this.stopSequence();
    this.show(board, how);
  }

  show(board, how = null) {
    const was = this.board;
    this.board = board;
    this.selected = null;
    this.draw(how && was ? { ...how, was: was.piles } : null);
  }

  /** Show `boards` one after another, each reached by the move of the same index in `moves`
   * (the moves of one request: a move and what auto-collect or a finish played after it), the
   * first at once, the others `STEP_MS` apart; `done()` after the last. Without motion, the last
   * board at once. */
  sequence(boards, moves, { ghost = null, done = () => {} } = {}) {
    this.stopSequence();
    if (!motionOn() || boards.length < 2) {
      this.show(boards[boards.length - 1], { move: moves[0], ghost });
      done();
      return;
    }
    this.show(boards[0], { move: moves[0], ghost });
    this.final = boards[boards.length - 1];
    this.sequenceDone = done;
    boards.slice(1).forEach((board, i) => {
      this.steps.push(setTimeout(() => {
        const last = i === boards.length - 2;
        if (last) this.steps = [];
        this.show(board, { move: moves[i + 1], duration: MOVE_MS });
        sound("collect");
        if (last) this.stopSequence();
      }, MOVE_MS * 0.6 + STEP_MS * i));
    });
  }

  /** Stop showing a sequence (its `done` still runs: the last board is the caller's to show). */
  stopSequence() {
    for (const timer of this.steps) clearTimeout(timer);
    this.steps = [];
    this.final = null;
    const done = this.sequenceDone;
    this.sequenceDone = null;
    if (done) done();
  }

  /** Whether the player may still move here (false once it resigned, won or the race ended). */
  setPlaying(playing) {
    if (playing === this.playing) return;
    this.playing = playing;
    this.selected = null;
    this.draw();
  }

  setBusy(busy) { this.busy = busy; this.node.classList.toggle("busy", busy); }

  /** Draw the board. `how` (from `show`): the move that led here, to animate its cards. */
  draw(how = null) {
    const node = this.node;
    if (!node.isConnected) return; // drawn when it is placed on the page (the resize observer)
    const motion = motionOn();
    const inFlight = motion && performance.now() < this.flightEnd;
    const before = motion && (how || inFlight) ? measure(node, how && how.ghost) : null;
    const width = node.clientWidth || 320;
    this.width = node.clientWidth;
    const piles = (this.board && this.board.piles) || {};
    const fit = this.fit ? this.fit(node) : 0;
    const table = plan(this.game.layout, piles, width, fit);
    const { cw, ch, font } = table.size;
    node.style.setProperty("--cw", `${cw}px`);
    node.style.setProperty("--ch", `${ch}px`);
    node.style.setProperty("--corner", `${font}px`);
    node.classList.toggle("small", cw < 44);
    node.classList.toggle("playable", this.interactive);
    node.setAttribute("role", this.interactive ? "application" : "group");
    const targets = this.targets();
    const starts = this.startable();
    const frag = document.createDocumentFragment();
    for (const region of this.game.layout.regions || []) {
      const box = el("div", { class: region.box ? "region" : "region bare", "aria-hidden": "true" },
        el("span", { class: "legend", text: region.label }));
      Object.assign(box.style, { left: `${table.left + region.x * cw}px`, top: `${region.y * ch}px`,
        width: `${region.width * cw}px`, height: `${region.height * ch}px` });
      frag.append(box);
    }
    for (const { slot, x, y, cards, covered, mark } of table.slots) {
      const all = piles[slot.pile] || [];
      const pile = el("div", {
        class: `pile ${slot.kind} fan-${slot.fan}` + (targets.has(slot.pile) ? " target" : "")
          + (this.selected && this.selected.pile === slot.pile ? " source" : "") + (covered ? " covered" : ""),
        dataset: { pile: slot.pile },
        tabindex: this.interactive ? 0 : null,
        role: this.interactive ? "button" : "group",
        "aria-label": this.pileLabel(slot, all),
        title: this.interactive ? null : pileName(this.game, slot.pile),
      });
      pile.style.left = `${x}px`;
      pile.style.top = `${y}px`;
      if (mark) pile.append(el("div", { class: "slot-mark" }));
      for (const placed of cards) {
        const card = cardNode(placed.code);
        card.dataset.pile = slot.pile;
        card.dataset.index = placed.index;
        if (placed.under) { card.classList.add("under"); card.setAttribute("aria-hidden", "true"); }
        if (placed.top) card.style.top = `${placed.top}px`;
        if (placed.left) card.style.left = `${placed.left}px`;
        const count = all.length - placed.index;
        if (starts.has(`${slot.pile}:${count}`) || this.actionAt(slot.pile, placed.index)) card.classList.add("movable");
        if (this.selected && this.selected.pile === slot.pile && count <= this.selected.count) card.classList.add("picked");
        pile.append(card);
      }
      if (this.legalActionOn(slot) || this.actionAt(slot.pile, null)) pile.classList.add("actionable");
      frag.append(pile);
      if (slot.label) {
        const tag = el("span", { class: "pile-label", "aria-hidden": "true", text: slot.label });
        tag.style.left = `${x + cw / 2}px`;
        tag.style.top = `${y + ch}px`;
        frag.append(tag);
      }
    }
    const focused = node.contains(document.activeElement) ? document.activeElement.closest(".pile")?.dataset.pile : null;
    node.replaceChildren(frag);
    if (focused) node.querySelector(`.pile[data-pile="${focused}"]`)?.focus({ preventScroll: true });
    node.style.height = `${table.height}px`;
    if (before) {
      const left = Math.max(60, this.flightEnd - performance.now());
      const stock = this.game.layout.slots.find((s) => s.kind === "stock");
      const duration = how ? how.duration || MOVE_MS : left;
      const landed = fly(before, measure(node), {
        transfer: how && how.move ? parseTransfer(how.move) : null, was: how && how.was, now: piles,
        stock: stock && how && how.move && STOCK_ACTIONS.includes(how.move) ? stock.pile : null,
        duration, onlyMoved: !how,
      });
      if (landed) this.flightEnd = Math.max(this.flightEnd, performance.now() + landed);
    }
  }

  /** "tableau pile 3: 7♣ on top, 5 cards, 2 face down" (what a screen reader hears of a pile). */
  pileLabel(slot, cards) {
    const name = pileName(this.game, slot.pile);
    if (!cards.length) return `${name}: empty`;
    const down = cards.filter((c) => c === "??").length;
    const top = cards[cards.length - 1];
    const words = [`${name}: ${top === "??" ? "face down" : `${cardName(top)} on top`}`];
    if (cards.length > 1) words.push(`${cards.length} cards`);
    if (down && top !== "??") words.push(`${down} face down`);
    return words.join(", ");
  }

  // "pile:count" for every transfer the player could start.
  startable() {
    return new Set(this.transfers.map((t) => `${t.src}:${t.count}`));
  }

  targets() {
    if (!this.selected) return new Set();
    return new Set(this.transfers.filter((t) => t.src === this.selected.pile && t.count === this.selected.count).map((t) => t.dst));
  }

  legalActionOn(slot) {
    return slot.kind === "stock" && this.legal.some((m) => m === "deal" || m === "redeal");
  }

  /** The legal action that names pile `pile` (card `index`, or the pile itself when null):
   * "guess r2", "choose t0", "exchange t7.0"; undefined if none. */
  actionAt(pile, index) {
    return this.legal.find((m) => {
      const arg = m.split(" ")[1];
      if (!arg) return false;
      const [p, i] = arg.split(".");
      return p === pile && (i === undefined || (index !== null && Number(i) === index));
    });
  }

  stockAction() {
    for (const name of STOCK_ACTIONS) if (this.legal.includes(name)) return name;
    return undefined;
  }

  select(pile, count) {
    this.selected = { pile, count };
    this.draw();
  }

  clear() { if (this.selected) { this.selected = null; this.draw(); } }

  play(text, from = null) {
    this.selected = null;
    this.cycle = null;
    if (this.onMove) this.onMove(text, from);
  }

  /** The places a block of `count` cards from `pile` may go now: foundations first, then the
   * others in the order of the legal moves. */
  destinations(pile, count) {
    const dsts = this.transfers.filter((t) => t.src === pile && t.count === count).map((t) => t.dst);
    const foundation = (dst) => slotOf(this.game, dst)?.kind === "foundation";
    return [...dsts.filter(foundation), ...dsts.filter((d) => !foundation(d))];
  }

  /** Tap to move: play the card at `index` of `pile` (null: the pile's top card, or the
   * smallest block that may move) to its best place, or on to the next place of the last tap's
   * list when it is the card tapped last; a card that cannot move is refused here. */
  tap(pile, index) {
    const cards = this.board.piles[pile] || [];
    if (!cards.length) return;
    let count = index === null ? 1 : cards.length - index;
    if (index === null) {
      const counts = this.transfers.filter((t) => t.src === pile).map((t) => t.count);
      if (counts.length && !counts.includes(1)) count = Math.min(...counts);
    }
    const code = cards[cards.length - count];
    const last = this.cycle;
    if (last && last.pile === pile && last.count === count && last.code === code && Date.now() < last.until) {
      const at = last.list.indexOf(pile);
      for (let k = 1; k < last.list.length; k++) {
        const dst = last.list[(at + k) % last.list.length];
        const move = transferText(pile, dst, count);
        if (dst !== pile && dst !== last.from && this.legal.includes(move)) {
          this.play(move);
          this.cycle = { ...last, pile: dst, until: Date.now() + CYCLE_MS };
          return;
        }
      }
      this.refuse(pile, count, `${cardName(code)} has nowhere else to go`);
      return;
    }
    const list = this.destinations(pile, count);
    if (!list.length) {
      this.refuse(pile, count, code === "??" ? "A face-down card cannot move" : `${cardName(code)} cannot move now`);
      return;
    }
    this.play(transferText(pile, list[0], count));
    this.cycle = { code, count, list, from: pile, pile: list[0], until: Date.now() + CYCLE_MS };
  }

  /** A move the page will not send: the cards shake, a sound, and the words for screen readers. */
  refuse(pile, count, words) {
    const cards = this.board.piles[pile] || [];
    shake([...this.node.querySelectorAll(`.card[data-pile="${pile}"]`)].filter((c) => Number(c.dataset.index) >= cards.length - count));
    sound("refuse");
    announce(words);
  }

  // What a click on (pile, index) means now; `how`: "tap" (a click, Enter) or "pick" (Space).
  choose(pile, index, how = "tap") {
    const cards = (this.board.piles[pile] || []);
    const count = index === null ? 0 : cards.length - index;
    if (this.selected) {
      const { pile: src, count: n } = this.selected;
      if (src === pile && (index === null || count === n)) return this.clear();
      const move = transferText(src, pile, n);
      if (this.legal.includes(move)) return this.play(move);
      if (this.startable().has(`${pile}:${count}`)) return this.select(pile, count);
      return this.play(move); // not legal: the server says why, and nothing moves
    }
    const action = this.actionAt(pile, index) || (index === null ? undefined : this.actionAt(pile, null));
    if (action && action.startsWith("exchange ") && !exchangeCanWin(action)) {
      // Clock: the card clicked lies above another face-down card (a squared pile shows its top
      // card), so that exchange can never win: offer the pile's bottom card instead.
      ask({ title: "Only the bottom card can still win", id: "exchange-ask", yes: "Exchange the bottom card", no: "Choose again",
        text: `Put back anywhere else in ${pileName(this.game, pile)}, the King would turn up before the cards under it, `
          + "and the game would be lost. Exchange the fourth King for this pile's bottom card instead?" })
        .then((yes) => { if (yes) this.play(`exchange ${pile}.0`); });
      return;
    }
    if (action) return this.play(action);
    const slot = this.game.layout.slots.find((s) => s.pile === pile);
    if (slot && slot.kind === "stock") {
      const stock = this.legal.find((m) => m === "deal") || this.legal.find((m) => m === "redeal");
      if (stock) return this.play(stock);
    }
    if (how === "tap" && store.tapToMove) return this.tap(pile, index);
    if (count && this.startable().has(`${pile}:${count}`)) return this.select(pile, count);
    const counts = this.transfers.filter((t) => t.src === pile).map((t) => t.count);
    if (counts.length && index === null) return this.select(pile, Math.min(...counts));
    if (count) {
      toast(counts.length ? `pick a card that can move: ${cardName(cards[cards.length - Math.min(...counts)])}`
        : `${cardName(cards[index])} cannot move now`, "info");
    }
  }

  click(event) {
    if (!this.interactive || !this.board || this.dragged || this.busy || this.steps.length) return;
    const card = event.target.closest(".card");
    const pile = event.target.closest(".pile");
    if (!pile) return this.clear();
    this.choose(pile.dataset.pile, card ? Number(card.dataset.index) : null);
  }

  // A double click sends a card to a foundation when it may go there (with tap to move, each
  // click is a tap already).
  doubleClick(event) {
    if (!this.interactive || !this.board || store.tapToMove) return;
    const pile = event.target.closest(".pile");
    if (!pile) return;
    const move = this.transfers.find((t) => t.src === pile.dataset.pile && t.count === 1 && t.dst.startsWith("f"));
    if (move) this.play(move.text);
  }

  key(event) {
    if (!this.interactive || !this.board) return;
    const pile = event.target.closest(".pile");
    const slots = this.game.layout.slots;
    if (event.key === "Escape") { this.clear(); return; }
    if ((event.key === "d" || event.key === "D") && !event.ctrlKey && !event.metaKey) {
      const action = this.stockAction();
      if (action) { event.preventDefault(); this.play(action); }
      return;
    }
    if (!pile) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (this.busy || this.steps.length) return;
      this.choose(pile.dataset.pile, null, event.key === "Enter" ? "tap" : "pick");
      return;
    }
    const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (!(event.key in arrows)) return;
    event.preventDefault();
    const [dx, dy] = arrows[event.key];
    const here = slots.find((s) => s.pile === pile.dataset.pile);
    let best = null, bestScore = Infinity;
    for (const s of slots) {
      const ddx = s.x - here.x, ddy = s.y - here.y;
      if (s === here || (dx && Math.sign(ddx) !== dx) || (dy && Math.sign(ddy) !== dy)) continue;
      const score = dx ? Math.abs(ddx) + 3 * Math.abs(ddy) : Math.abs(ddy) + 3 * Math.abs(ddx);
      if (score < bestScore) { best = s; bestScore = score; }
    }
    if (best) this.node.querySelector(`.pile[data-pile="${best.pile}"]`).focus();
  }

  // Drag and drop with pointer events (mouse, pen and touch alike).
  pointerDown(event) {
    if (!this.interactive || !this.board || event.button > 0) return;
    const card = event.target.closest(".card.up");
    if (!card || !this.node.contains(card) || card.classList.contains("under")) return;
    const pile = card.dataset.pile;
    const index = Number(card.dataset.index);
    const count = this.board.piles[pile].length - index;
    const start = { x: event.clientX, y: event.clientY };
    let ghost = null;
    const moving = [...this.node.querySelectorAll(`.card[data-pile="${pile}"]`)].filter((c) => Number(c.dataset.index) >= index);
    const move = (e) => {
      const dx = e.clientX - start.x, dy = e.clientY - start.y;
      if (!ghost) {
        if (Math.hypot(dx, dy) < 6) return;
        this.selected = { pile, count };
        this.dragged = true;
        ghost = el("div", { class: "ghost" });
        const rect = card.getBoundingClientRect();
        ghost.style.left = `${rect.left}px`;
        ghost.style.top = `${rect.top}px`;
        for (const name of ["--cw", "--ch", "--corner"]) ghost.style.setProperty(name, this.node.style.getPropertyValue(name));
        ghost.classList.add(`fan-${card.closest(".pile").classList.contains("fan-right") ? "right" : "down"}`);
        const base = card.offsetTop, baseLeft = card.offsetLeft;
        for (const c of moving) {
          const copy = c.cloneNode(true);
          copy.style.top = `${c.offsetTop - base}px`;
          copy.style.left = `${c.offsetLeft - baseLeft}px`;
          ghost.append(copy);
          c.classList.add("lifted");
        }
        document.body.append(ghost);
        for (const t of this.targets()) this.node.querySelector(`.pile[data-pile="${t}"]`)?.classList.add("target");
      }
      ghost.style.transform = `translate(${dx}px, ${dy}px)`;
    };
    const up = (e) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      if (!ghost) return;
      ghost.hidden = true;
      const under = document.elementFromPoint(e.clientX, e.clientY);
      ghost.hidden = false;
      const target = under && under.closest(".pile");
      setTimeout(() => { this.dragged = false; }, 0);
      if (!target || !this.node.contains(target) || target.dataset.pile === pile) {
        this.snapBack(ghost);
        return;
      }
      this.play(transferText(pile, target.dataset.pile, count), ghost);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  }

  // A dragged pile that did not land goes back where it came from (at once without motion). The
  // drag's selection ends with it, but a card tapped while it flies back stays chosen.
  snapBack(ghost) {
    if (!ghost) return;
    const dragged = this.selected;
    const back = () => { ghost.remove(); if (this.selected === dragged) this.selected = null; this.draw(); };
    if (!motionOn()) { back(); return; }
    ghost.classList.add("returning");
    ghost.style.transform = "translate(0px, 0px)";
    setTimeout(back, 220);
  }
}
