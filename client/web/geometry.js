// Where every card of a board goes on screen: pure arithmetic over a game's layout
// (engine/layout.py, in card units) and the cards of each pile, with no DOM.
//
// The rule of the table: every face-up card that shows shows its rank and its suit. A covered
// card in a downward fan keeps a strip at its top at least as tall as its corner (rank and suit
// side by side); in a rightward fan, a strip at its left as wide as its corner (rank above suit).
// Fans use the room the felt has: below a cascade down to the next pile or the table's foot,
// right of a spread up to the next pile or the table's edge. Too little room squeezes face-down
// cards first, then face-up ones down to their strip, and then the table grows instead.

export const ASPECT = 1.4; // a card's height over its width
const MAX_CARD = 88; // px: the widest card drawn
const MIN_CARD = 22;
const MIN_FIT = 40; // px: fitting a tall table into the window never makes cards narrower than this
/** How many cards of a rightward waste fan show: the last three, as players expect. */
export const WASTE_FAN = 3;

/**
 * The card size for `layout` in a box `width` px wide and, when `height` is given, about that
 * many px tall: {cw, ch, font} (card width and height, corner font size, in px).
 */
export function cardSize(layout, width, height = 0) {
  let cw = Math.floor(width / layout.width);
  if (height > 0) cw = Math.min(cw, Math.max(MIN_FIT, Math.floor(height / (layout.height * ASPECT))));
  cw = Math.max(MIN_CARD, Math.min(MAX_CARD, cw));
  const ch = Math.round(cw * ASPECT);
  const font = Math.max(10, Math.round(cw * 0.3));
  return { cw, ch, font };
}

/**
 * The smallest offsets (px) that keep a covered card legible: `down`, the strip of a card in a
 * downward fan (its corner's height and a little); `right`, the strip of a card in a rightward
 * fan (its corner's width and a little); `back`, the least a face-down card may show.
 */
export function strips({ ch, font }) {
  return { down: font + 6, right: Math.ceil(font * 1.2) + 6, back: Math.max(3, Math.round(ch * 0.05)) };
}

function overlaps(a, b, wa = 1, ha = 1) {
  return a.x < b.x + 1 - 0.01 && b.x < a.x + wa - 0.01 && a.y < b.y + 1 - 0.01 && b.y < a.y + ha - 0.01;
}

/** Room (card units) from `slot` to the next slot beyond it `along` "y" (below) or "x" (to
 * the right), among the slots that share its band across, or to `limit`. */
function roomAlong(slots, slot, limit, along) {
  const across = along === "y" ? "x" : "y";
  let room = limit - slot[along];
  for (const other of slots) {
    if (other !== slot && other[along] > slot[along] + 0.01
        && other[across] < slot[across] + 1 - 0.01 && other[across] + 1 > slot[across] + 0.01) {
      room = Math.min(room, other[along] - slot[along]);
    }
  }
  return room;
}

/**
 * Offsets (px) of a downward fan of `cards` (bottom first) in `room` px: returns {up, back},
 * the step after a face-up and after a face-down card.
 */
export function downSteps(cards, room, size, strip) {
  const { ch } = size;
  let up = Math.max(strip.down, Math.round(ch * 0.3));
  let back = Math.max(strip.back, Math.round(ch * 0.14));
  const covered = cards.slice(0, -1);
  const downs = covered.filter((c) => c === "??").length;
  const ups = covered.length - downs;
  const avail = room - ch;
  if (ups * up + downs * back > avail && downs) back = Math.max(strip.back, Math.floor((avail - ups * up) / downs));
  if (ups * up + downs * back > avail && ups) up = Math.max(strip.down, Math.floor((avail - downs * back) / ups));
  return { up, back };
}

/** The step (px) of a rightward fan of `count` cards in `room` px. */
export function rightStep(count, room, size, strip) {
  const { cw } = size;
  const want = Math.max(strip.right, Math.round(cw * 0.42));
  if (count < 2) return want;
  return Math.max(strip.right, Math.min(want, Math.floor((room - cw) / (count - 1))));
}

/**
 * The plan of a board: where each pile and each card it shows goes, in px from the table's
 * top-left corner. `piles`: {pile id: [card codes, bottom first]}; `width`: the box's width;
 * `fit`: the height the fans may use (0: as tall as the layout); the table is as tall as its
 * layout, or as its lowest card when that is lower. Returns
 * {size, width, height, slots: [{slot, x, y, mark, covered, cards: [{code, index, left, top, under}]}]}:
 * `under` marks a card drawn beneath a squared pile's top card (it shows only while that card
 * is dragged away); `covered` a slot whose card lies under another pile's card; `mark` whether
 * an empty slot draws its outline (not where slots overlap, as Pyramid's rows and Clock's tucked
 * cards do: a card gone from there leaves bare felt).
 */
export function plan(layout, piles, width, fit = 0) {
  const size = cardSize(layout, width, fit);
  const { cw, ch } = size;
  const strip = strips(size);
  const tableWidth = layout.width * cw;
  const left = Math.max(0, Math.floor((width - tableWidth) / 2));
  const floor = Math.max(layout.height, fit / ch); // how low the fans may reach, in card heights
  const slots = layout.slots;
  const out = [];
  let bottom = 0;
  slots.forEach((slot, i) => {
    const cards = piles[slot.pile] || [];
    const x = left + slot.x * cw, y = slot.y * ch;
    const placed = [];
    if (slot.fan === "down") {
      const steps = downSteps(cards, roomAlong(slots, slot, floor, "y") * ch, size, strip);
      let top = 0;
      cards.forEach((code, index) => {
        placed.push({ code, index, left: 0, top, under: false });
        top += code === "??" ? steps.back : steps.up;
      });
    } else if (slot.fan === "right") {
      const first = slot.kind === "waste" ? Math.max(0, cards.length - WASTE_FAN) : 0;
      const shown = cards.length - first;
      const step = rightStep(shown, roomAlong(slots, slot, layout.width, "x") * cw, size, strip);
      for (let index = first; index < cards.length; index++) {
        placed.push({ code: cards[index], index, left: (index - first) * step, top: 0, under: false });
      }
    } else {
      cards.forEach((code, index) => {
        if (index >= cards.length - 2) placed.push({ code, index, left: 0, top: 0, under: index < cards.length - 1 });
      });
    }
    const lowest = placed.length ? placed[placed.length - 1].top : 0;
    bottom = Math.max(bottom, y + lowest + ch);
    const later = slots.slice(i + 1).some((o) => (piles[o.pile] || []).length && overlaps(slot, o));
    const shared = slots.some((o) => o !== slot && overlaps(slot, o));
    out.push({
      slot, x, y, cards: placed,
      covered: later && slot.kind !== "foundation" && cards.length > 0,
      mark: !(cards.length === 0 && shared),
    });
  });
  return { size, left, width: Math.max(width, tableWidth), height: Math.ceil(Math.max(bottom, layout.height * ch)) + 4, slots: out };
}
