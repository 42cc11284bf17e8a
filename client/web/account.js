// "Your account" (/account): your name and whether it is claimed (a guest's name is marked
// "guest"), and what the server's claims offer (docs/protocol.md, Session): claim the name with a
// password, log in as a claimed player (this browser's token becomes that player's), a one-time
// code to move this player to another device and a box to use one, passkeys (add one to a
// claimed name, log in with one: only where the server has an HTTPS origin and the browser
// WebAuthn), and deleting the identity. Every refusal is said in words beside its form.

import { conn } from "./shell.js";
import { ask, el, toast } from "./ui.js";

/** A refusal in words for people (docs/protocol.md, Errors). */
export function refusal(err) {
  switch (err.code) {
    case "bad_login": return "No claimed name with that password: check both.";
    case "rate_limited":
      return err.retryAfter ? `Too many tries: wait ${err.retryAfter} s and try again.` : (err.reason || "Too many tries: wait a moment.");
    case "name_taken": return "That name, or one that looks like it, is claimed by another player.";
    case "bad_code": return "That code is unknown, used already, or expired.";
    case "challenge_expired": return "The passkey request took too long: try again.";
    case "bad_passkey": return "That passkey was not accepted here.";
    case "unavailable": return err.reason || "This server cannot do that now.";
    case "offline": return "Not connected: try again once the page is back online.";
    default: return err.reason || String(err.message || err);
  }
}

/** A form's line for what happened: a status for success, an alert for a refusal. */
function said(node, text, ok) {
  node.textContent = text;
  node.className = ok ? "said ok" : "said error";
  node.setAttribute("role", ok ? "status" : "alert");
}

function passwordField(id, label, autocomplete) {
  return el("label", { for: id }, label,
    el("input", { id, type: "password", required: true, maxlength: 256, autocomplete }));
}

export class AccountPage {
  constructor(main) {
    this.main = main;
    this.name = el("strong", { id: "account-name" });
    this.state = el("span", { id: "account-state" });
    this.claimBox = this.claimSection();
    this.passkeyBox = this.passkeySection();
    main.replaceChildren(
      el("h1", { text: "Your account" }),
      el("section", { class: "card-box", "aria-labelledby": "account-you" },
        el("h2", { id: "account-you", text: "You" }),
        el("p", {}, "You are ", this.name, " ", this.state)),
      el("div", { class: "columns account" },
        this.claimBox, this.passkeyBox, this.loginSection(), this.transferSection(), this.redeemSection(),
        this.forgetSection()));
    this.off = conn.subscribe(() => {}, () => this.show());
    if (conn.player) this.show();
  }

  destroy() { this.off(); }

  /** Show who this browser is now: name, claimed or guest, and what fits that. */
  show() {
    this.name.textContent = conn.name || "";
    this.state.replaceChildren(conn.claimed
      ? el("span", { class: "tag claimed", text: "claimed" })
      : el("span", { class: "tag guest", text: "guest" }));
    this.claimTitle.textContent = conn.claimed ? "Change your password" : "Claim this name";
    this.claimHint.textContent = conn.claimed
      ? "Your name is yours on this server: log in with it and your password on any device."
      : "Keep your name and your races on every device: nobody else can take a claimed name.";
    this.passkeyAdd.hidden = !conn.claimed || !this.webauthn;
    this.passkeyGuest.hidden = conn.claimed || !this.webauthn;
  }

  get webauthn() { return typeof window.PublicKeyCredential === "function" && window.isSecureContext; }

  claimSection() {
    const message = el("p", { id: "claim-message", class: "said" });
    this.claimTitle = el("h2", { id: "claim-title", text: "Claim this name" });
    this.claimHint = el("p", { class: "hint" });
    const form = el("form", { id: "claim-form", class: "stack" },
      passwordField("claim-password", "Password", "new-password"),
      passwordField("claim-password2", "The same password again", "new-password"),
      el("button", { class: "primary", id: "claim-save", type: "submit", text: "Claim" }), message);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const [first, second] = [form.querySelector("#claim-password").value, form.querySelector("#claim-password2").value];
      if (first !== second) return said(message, "The two passwords differ: type the same one twice.", false);
      try {
        await conn.claim(first);
        form.reset();
        said(message, `${conn.name} is yours now.`, true);
        this.show();
      } catch (err) {
        said(message, refusal(err), false);
      }
    });
    return el("section", { class: "card-box", "aria-labelledby": "claim-title" }, this.claimTitle, this.claimHint, form);
  }

  passkeySection() {
    const message = el("p", { id: "passkey-message", class: "said" });
    this.passkeyAdd = el("button", { type: "button", id: "passkey-add", text: "Add a passkey", hidden: true,
      onclick: async () => {
        try {
          await conn.addPasskey();
          said(message, "Passkey added: use it to log in on this device.", true);
        } catch (err) {
          said(message, err.name === "NotAllowedError" ? "The passkey was not made." : refusal(err), false);
        }
      } });
    this.passkeyGuest = el("p", { class: "hint", text: "Claim your name first, then add a passkey.", hidden: true });
    return el("section", { class: "card-box", "aria-labelledby": "passkey-title" },
      el("h2", { id: "passkey-title", text: "Passkeys" }),
      el("p", { class: "hint", text: "Log in with your device's screen lock instead of a password (on servers reached over HTTPS)." }),
      this.passkeyGuest, this.passkeyAdd, message);
  }

  loginSection() {
    const message = el("p", { id: "login-message", class: "said" });
    const name = el("input", { id: "login-name", required: true, maxlength: 32, autocomplete: "username webauthn" });
    const form = el("form", { id: "login-form", class: "stack" },
      el("label", { for: "login-name" }, "Name", name),
      passwordField("login-password", "Password", "current-password"),
      el("button", { class: "primary", id: "login-go", type: "submit", text: "Log in" }), message);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await conn.login(name.value, form.querySelector("#login-password").value);
        form.reset();
        said(message, `Logged in as ${conn.name}.`, true);
      } catch (err) {
        said(message, refusal(err), false);
      }
    });
    const passkey = el("button", { type: "button", id: "passkey-login", text: "Log in with a passkey",
      hidden: !this.webauthn,
      onclick: async () => {
        try {
          await conn.passkeyLogin(name.value.trim() || null);
          said(message, `Logged in as ${conn.name}.`, true);
        } catch (err) {
          said(message, err.name === "NotAllowedError" ? "No passkey was used." : refusal(err), false);
        }
      } });
    return el("section", { class: "card-box", "aria-labelledby": "login-title" },
      el("h2", { id: "login-title", text: "Log in" }),
      el("p", { class: "hint", text: "Play as your claimed name in this browser. The player this browser was stays on the server." }),
      form, passkey);
  }

  transferSection() {
    const message = el("p", { id: "transfer-message", class: "said" });
    const code = el("output", { id: "transfer-code", class: "code" });
    const expires = el("span", { id: "transfer-expires", class: "hint" });
    const shown = el("p", { hidden: true }, "Your code: ", code, " ", expires);
    const make = el("button", { type: "button", id: "transfer-make", text: "Make a code",
      onclick: async () => {
        try {
          const reply = await conn.request({ type: "transfer_code" });
          code.textContent = reply.code;
          const at = new Date(reply.expires_ms - conn.serverOffset);
          expires.textContent = `(works once, until ${at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })})`;
          shown.hidden = false;
          message.textContent = "";
        } catch (err) {
          said(message, refusal(err), false);
        }
      } });
    return el("section", { class: "card-box", "aria-labelledby": "transfer-title" },
      el("h2", { id: "transfer-title", text: "Move to another device" }),
      el("p", { class: "hint", text: "Make a one-time code here, then type it under \"Use a code\" on the other device." }),
      make, shown, message);
  }

  redeemSection() {
    const message = el("p", { id: "redeem-message", class: "said" });
    const input = el("input", { id: "redeem-code", required: true, maxlength: 32, autocomplete: "one-time-code",
      autocapitalize: "characters", spellcheck: "false" });
    const form = el("form", { id: "redeem-form", class: "stack" },
      el("label", { for: "redeem-code" }, "Code", input),
      el("button", { class: "primary", id: "redeem-go", type: "submit", text: "Use the code" }), message);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await conn.redeem(input.value);
        form.reset();
        said(message, `You are ${conn.name} now.`, true);
      } catch (err) {
        said(message, refusal(err), false);
      }
    });
    return el("section", { class: "card-box", "aria-labelledby": "redeem-title" },
      el("h2", { id: "redeem-title", text: "Use a code" }), form);
  }

  forgetSection() {
    const message = el("p", { id: "forget-message", class: "said" });
    const button = el("button", { type: "button", class: "danger", id: "forget-open", text: "Delete my identity",
      onclick: async () => {
        const sure = await ask({ id: "forget", title: "Delete your identity?",
          text: "Your name, password, passkeys and every device's access go for good. Your past races stay, as \"deleted player\".",
          yes: "Delete", no: "Keep it" });
        if (!sure) return;
        try {
          const reply = await conn.forgetMe();
          toast(`Identity deleted (${reply.races} race${reply.races === 1 ? "" : "s"} now anonymous)`, "info");
        } catch (err) {
          said(message, refusal(err), false);
        }
      } });
    return el("section", { class: "card-box", "aria-labelledby": "forget-title" },
      el("h2", { id: "forget-title", text: "Delete my identity" }),
      el("p", { class: "hint", text: "This browser then starts again as a new guest." }), button, message);
  }
}
