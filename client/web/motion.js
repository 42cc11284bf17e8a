// Cards that travel: a board is drawn anew after every move, so the cards' places are measured
// before and after, and each card that moved is sent from its old place to its new one (FLIP:
// first, last, invert, play) with the Web Animations API; a card turned face up turns over as it
// lands. Nothing here runs unless `motionOn()` (settings.js): then the board is simply drawn.

const EPSILON = 1; // px: a card that moved less has not moved

/**
 * Where every face-up card of `table` is now, relative to the table: [{node, code, pile, index,
 * x, y}], and each pile's place by id. `ghost`: the cards a player is dragging (a drag's cards
 * start from where they were dropped, not from their pile).
 */
export function measure(table, ghost = null) {
  const origin = table.getBoundingClientRect();
  const at = (node) => { const r = node.getBoundingClientRect(); return { x: r.left - origin.left, y: r.top - origin.top }; };
  const dragged = new Map();
  if (ghost) for (const copy of ghost.querySelectorAll(".card")) dragged.set(`${copy.dataset.pile}:${copy.dataset.index}`, at(copy));
  const cards = [...table.querySelectorAll(".card.up")].map((node) => ({
    node, code: node.dataset.card, pile: node.dataset.pile, index: Number(node.dataset.index),
    ...(dragged.get(`${node.dataset.pile}:${node.dataset.index}`) || at(node)),
  }));
  const piles = {};
  for (const pile of table.querySelectorAll(".pile")) piles[pile.dataset.pile] = at(pile);
  return { cards, piles };
}

/** Pair each card shown now with the card it was before (the same card code), or null. The cards
 * a transfer moved (`transfer` with the piles before, `was`) pair by place; others by pile and
 * code, then by code alone (a game of two decks has two of each card). */
function pair(before, after, transfer, was, now) {
  const pairs = new Map();
  const used = new Set();
  const take = (card, old) => { pairs.set(card, old); used.add(old); };
  if (transfer && was && now) {
    const from = was[transfer.src] || [], to = now[transfer.dst] || [];
    for (let k = 0; k < transfer.count; k++) {
      const oldIndex = from.length - transfer.count + k, newIndex = to.length - transfer.count + k;
      const old = before.cards.find((c) => c.pile === transfer.src && c.index === oldIndex);
      const card = after.cards.find((c) => c.pile === transfer.dst && c.index === newIndex);
      if (old && card && old.code === card.code && !used.has(old)) take(card, old);
    }
  }
  for (const same of [true, false]) {
    for (const card of after.cards) {
      if (pairs.has(card)) continue;
      const old = before.cards.find((c) => !used.has(c) && c.code === card.code && (!same || c.pile === card.pile));
      if (old) take(card, old);
    }
  }
  return pairs;
}

/**
 * Animate the cards of a table just drawn from where they were (`before`, from `measure`) to
 * where they are (`after`). `options`: `transfer` (the move, parsed), `was` and `now` (the piles
 * before and after), `stock` (the stock's pile id, where dealt cards come from, when the move was
 * not a transfer), `duration` (ms), `onlyMoved` (animate only cards that moved: a drawing in the
 * middle of a flight carries the cards on from where they are). Returns when the last ends (ms
 * from now), 0 when nothing moved.
 */
export function fly(before, after, { transfer = null, was = null, now = null, stock = null, duration = 200, onlyMoved = false } = {}) {
  const pairs = pair(before, after, transfer, was, now);
  let longest = 0;
  for (const card of after.cards) {
    const old = pairs.get(card);
    let from = null, turn = false;
    if (old) {
      if (Math.abs(old.x - card.x) + Math.abs(old.y - card.y) > EPSILON) from = old;
    } else if (!onlyMoved && was) {
      const pile = was[card.pile] || [];
      if (pile[card.index] === "??") { from = card; turn = true; } // turned up where it lies
      else if (stock && !transfer && before.piles[stock]) { from = before.piles[stock]; turn = true; } // dealt
    }
    if (!from) continue;
    const dx = from.x - card.x, dy = from.y - card.y;
    const start = `translate(${dx}px, ${dy}px)${turn ? " scaleX(0.05)" : ""}`;
    card.node.classList.add("flying");
    const animation = card.node.animate([{ transform: start }, { transform: "none" }], { duration, easing: "cubic-bezier(.2,.7,.3,1)" });
    const done = () => card.node.classList.remove("flying");
    animation.onfinish = done;
    animation.oncancel = done;
    longest = duration;
  }
  return longest;
}

/** Shake `nodes` (a refused card): a class that style.css animates only while motion is on, and
 * outlines in red either way. */
export function shake(nodes) {
  for (const node of nodes) {
    node.classList.remove("refused");
    void node.offsetWidth; // (so that a second refusal shakes again)
    node.classList.add("refused");
    setTimeout(() => node.classList.remove("refused"), 450);
  }
}
