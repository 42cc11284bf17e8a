// Cards, piles and moves as a person reads them: "10♥", "tableau pile 3", "the 7♣ to
// foundation 1". Card codes are the engine's ("TH" is the 10♥, "??" a face-down card); pile
// names come from the engine with each game's layout (/api/games), so the page names piles
// exactly as the server's refusals do.

export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };

let games = [];
/** Keep the games the server describes (`/api/games`: key, name, summary, layout...). */
export function setGames(list) { games = list; }
/** Every game, in the server's order. */
export function allGames() { return games; }
/** The game described under `key`, or undefined. */
export function gameByKey(key) { return games.find((g) => g.key === key); }

/** "10♥" for "TH"; "a face-down card" for "??". */
export function cardName(code) {
  if (!code || code === "??") return "a face-down card";
  return `${RANKS[code[0]] || code[0]}${SUITS[code[1]] || code[1]}`;
}

/** One card as a DOM node: its corner (rank and suit) and a large pip; face down, a back. */
export function cardNode(code) {
  const node = document.createElement("div");
  node.setAttribute("role", "img");
  if (code === "??") {
    node.className = "card down";
    node.setAttribute("aria-label", "face-down card");
    return node;
  }
  const rank = RANKS[code[0]] || code[0];
  const suit = SUITS[code[1]] || "?";
  node.className = `card up suit-${code[1]}`;
  node.setAttribute("aria-label", cardName(code));
  node.dataset.card = code;
  const corner = document.createElement("span");
  corner.className = "corner";
  const r = document.createElement("span");
  r.className = rank.length > 1 ? "rank wide" : "rank";
  r.textContent = rank;
  const s = document.createElement("span");
  s.className = "suit";
  s.textContent = suit;
  corner.append(r, s);
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.textContent = suit;
  node.append(corner, pip);
  return node;
}

/** The slot of pile `pile` in `game`'s layout. */
export function slotOf(game, pile) { return game.layout.slots.find((s) => s.pile === pile); }

/** A pile's name as a person reads it ("tableau pile 3", "the stock"), from the engine. */
export function pileName(game, pile) {
  const slot = slotOf(game, pile);
  if (slot && slot.name) return slot.name;
  return slot ? `${slot.kind} ${pile}` : pile;
}

/** A legal transfer in notation "t3>f0" or "t3>t5x3" as {src, dst, count, text}; null otherwise. */
export function parseTransfer(text) {
  const m = /^([a-z]\d{0,2})>([a-z]\d{0,2})(?:x(\d{1,3}))?$/.exec(text);
  return m ? { src: m[1], dst: m[2], count: m[3] ? Number(m[3]) : 1, text } : null;
}

/** The notation of a transfer of `count` cards from `src` to `dst`. */
export function transferText(src, dst, count) { return `${src}>${dst}${count > 1 ? `x${count}` : ""}`; }

function capital(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

/** Whether Clock's `exchange tP.I` can still win: only with a pile's bottom card (I = 0). A King
 * put back above a face-down card turns up, and ends the game, while that card is still hidden. */
export function exchangeCanWin(move) { return /^exchange t\d{1,2}\.0$/.test(move); }

/** The face-down cards of `pile` on `board` (what a player may count, never what they are). */
function faceDown(board, pile) { return ((board && board.piles[pile]) || []).filter((c) => c === "??").length; }

/**
 * A button's words for a move that is not a transfer: "Deal", "Redeal", "Turn a card",
 * "Choose tableau pile 2 (the 7♣)", naming the pile by its name and the card the page shows.
 */
export function actionLabel(game, move, board) {
  const [verb, arg] = move.split(" ");
  const words = { deal: "Deal", redeal: "Redeal", turn: "Turn a card", guess: "Guess", choose: "Base rank from",
    exchange: "Exchange with" };
  let text = words[verb] || capital(verb);
  if (verb === "exchange" && arg && arg.includes(".")) {
    const [pile, index] = arg.split(".");
    const down = faceDown(board, pile);
    if (Number(index) > 0) {
      return `${text} card ${Number(index) + 1} from the bottom of ${pileName(game, pile)}: this can never win`;
    }
    return `${text} the bottom card of ${pileName(game, pile)}` + (down ? ` (${down} face down)` : "");
  }
  if (arg) {
    const [pile, index] = arg.split(".");
    const cards = board && board.piles[pile];
    const card = cards && (index !== undefined ? cards[Number(index)] : cards[cards.length - 1]);
    text += ` ${pileName(game, pile)}` + (card && card !== "??" ? ` (${cardName(card)})` : "");
  }
  return text;
}

/**
 * What a move did, for the live region: "7♣ to foundation 1", from the board before it (what
 * moved) and the cards it turned up (`revealed`: [pile, index, card] triples).
 */
export function moveWords(game, move, before, revealed = []) {
  const t = parseTransfer(move);
  let text;
  if (t && before && before.piles[t.src]) {
    const cards = before.piles[t.src];
    const first = cards[cards.length - t.count];
    const what = t.count > 1 ? `${cardName(first)} and ${t.count - 1} more` : cardName(first);
    text = `${what} to ${pileName(game, t.dst)}`;
  } else if (t) {
    text = `from ${pileName(game, t.src)} to ${pileName(game, t.dst)}`;
  } else {
    text = actionLabel(game, move, before);
  }
  const up = revealed.map((r) => cardName(r[2]));
  if (up.length) text += `; ${up.join(", ")} turned up`;
  return text;
}
