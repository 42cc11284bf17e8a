// What the browser keeps: the player's name (and whether the player chose it), the player's token
// and the settings (settings.js), in localStorage. The token lasts (a server with an archive keeps
// the player for good), and every tab of the browser is the same player; a tab that asked to be
// a second player keeps a token of its own, in its sessionStorage. A module of its own, which
// needs nothing else, so that the rules pages' boards read the settings too.

/** What the browser keeps: the name (and whether the player chose it), the player's token (the
 * browser's, or this tab's own when `separate`), and the settings (settings.js). */
export const store = {
  get name() { return localStorage.getItem("arena.name") || ""; },
  set name(v) { localStorage.setItem("arena.name", v); },
  get nameChosen() { return localStorage.getItem("arena.nameChosen") === "1"; },
  set nameChosen(v) { localStorage.setItem("arena.nameChosen", v ? "1" : "0"); },
  /** Whether this tab plays as a player of its own, not the browser's (see `Connection.separate`). */
  get separate() { return sessionStorage.getItem("arena.separate") === "1"; },
  set separate(v) { if (v) sessionStorage.setItem("arena.separate", "1"); else sessionStorage.removeItem("arena.separate"); },
  get token() { return (this.separate ? sessionStorage : localStorage).getItem("arena.token"); },
  set token(v) {
    const kept = this.separate ? sessionStorage : localStorage;
    if (v) kept.setItem("arena.token", v); else kept.removeItem("arena.token");
  },
  get fourColour() { return localStorage.getItem("arena.fourColour") === "1"; },
  set fourColour(v) { localStorage.setItem("arena.fourColour", v ? "1" : "0"); },
  // The settings dialog's choices (settings.js); each but the card back is on by default.
  get cardBack() { return localStorage.getItem("arena.cardBack") || "blue"; },
  set cardBack(v) { localStorage.setItem("arena.cardBack", v); },
  get animations() { return localStorage.getItem("arena.animations") !== "0"; },
  set animations(v) { localStorage.setItem("arena.animations", v ? "1" : "0"); },
  get sounds() { return localStorage.getItem("arena.sounds") !== "0"; },
  set sounds(v) { localStorage.setItem("arena.sounds", v ? "1" : "0"); },
  get autoCollect() { return localStorage.getItem("arena.autoCollect") !== "0"; },
  set autoCollect(v) { localStorage.setItem("arena.autoCollect", v ? "1" : "0"); },
  get tapToMove() { return localStorage.getItem("arena.tapToMove") !== "0"; },
  set tapToMove(v) { localStorage.setItem("arena.tapToMove", v ? "1" : "0"); },
  // Off by default: ratings beside names are hidden while you play a race (race-view.js).
  get hideRatings() { return localStorage.getItem("arena.hideRatings") === "1"; },
  set hideRatings(v) { localStorage.setItem("arena.hideRatings", v ? "1" : "0"); },
};
