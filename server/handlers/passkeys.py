"""Passkeys (WebAuthn, through the `webauthn` package): `passkey_begin` answers the options of a
ceremony, registering a passkey for a claimed player or logging in with one, and
`passkey_finish` checks the browser's answer and answers `Claimed` (a passkey added) or
`Welcome` (this connection is now the passkey's player, with a new token for this device, as
after `login`). Needs the server's archive and its ``public_origin`` (`server.passkeys`)."""

from __future__ import annotations

import json
import logging

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from server.archive import Archive, ArchiveError, Passkey
from server.handlers.claims import _become
from server.logs import fields
from server.names import BadName, name_key, normal_name
from server.passkeys import ChallengeExpired, UnknownChallenge, relying_party
from server.players import Player
from server.protocol import (
    PROTOCOL_VERSION,
    Claimed,
    ErrorCode,
    PasskeyBegin,
    PasskeyFinish,
    PasskeyOptions,
    ProtocolError,
)
from server.state import ServerState
from server.transport.session import Session

__all__ = ["passkey_begin", "passkey_finish"]

log = logging.getLogger("arena.server")
_players_log = logging.getLogger("arena.players")
#: The relying party's name the browser shows beside the passkey.
RP_NAME = "Patience Arena"


def _party(state: ServerState) -> tuple[str, str]:
    """``(rp_id, origin)``, or ProtocolError(unavailable) without a usable ``public_origin``."""
    origin = state.config.public_origin
    if origin:
        try:
            return relying_party(origin)
        except ValueError:
            pass
    raise ProtocolError(ErrorCode.UNAVAILABLE, "this server has no HTTPS origin set: passkeys cannot be used here")


def _archive(state: ServerState) -> Archive:
    if state.archiver is None:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "this server keeps no archive: passkeys cannot be kept here")
    return state.archiver.archive


def _unavailable(exc: ArchiveError) -> ProtocolError:
    log.warning("a passkey request could not use the archive: %s", exc.reason)
    return ProtocolError(ErrorCode.UNAVAILABLE, "the archive cannot be reached now: try again in a moment")


def _descriptors(keys: list[Passkey]) -> list[PublicKeyCredentialDescriptor]:
    return [PublicKeyCredentialDescriptor(id=base64url_to_bytes(key.credential_id)) for key in keys]


async def passkey_begin(state: ServerState, session: Session, msg: PasskeyBegin) -> None:
    """Answer `PasskeyOptions` for ``msg.purpose``: ``register`` (the connection's player, which
    must have claimed its name; its passkeys kept already are excluded) or ``login`` (``msg.name``
    given: that claimed player's passkeys are allowed, and a name nobody claimed gets options as
    any other, so they tell nothing; nil: any passkey the browser keeps for this server). Raises
    ProtocolError (protocol_version; hello_first: register before hello; not_allowed: register
    by a guest; unavailable: no public origin or no archive)."""
    if msg.protocol != PROTOCOL_VERSION:
        raise ProtocolError(ErrorCode.PROTOCOL_VERSION, f"this server speaks protocol {PROTOCOL_VERSION}")
    rp_id, _ = _party(state)
    archive = _archive(state)
    life_ms = round(state.config.passkey_challenge_s * 1000)
    now = state.clock.monotonic()
    if msg.purpose == "register":
        player = session.player
        if player is None:
            raise ProtocolError(ErrorCode.HELLO_FIRST, "say hello (or log in) before adding a passkey")
        try:
            claim = await archive.claim_of(player.id)
            kept = await archive.passkeys_of(player.id) if claim is not None else []
        except ArchiveError as exc:
            raise _unavailable(exc) from None
        if claim is None:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "claim your name with a password before adding a passkey")
        challenge = state.passkey_challenges.issue("register", player.id, now)
        options = options_to_json(
            generate_registration_options(
                rp_id=rp_id,
                rp_name=RP_NAME,
                user_name=claim.name,
                user_id=player.id.encode(),
                user_display_name=claim.name,
                challenge=challenge,
                timeout=life_ms,
                authenticator_selection=AuthenticatorSelectionCriteria(
                    resident_key=ResidentKeyRequirement.REQUIRED,
                    user_verification=UserVerificationRequirement.PREFERRED,
                ),
                exclude_credentials=_descriptors(kept),
            )
        )
    else:
        allowed: list[Passkey] = []
        if msg.name is not None:
            try:
                key = name_key(normal_name(msg.name))
            except BadName:
                key = ""
            try:
                holder = await archive.claim_by_key(key) if key else None
                allowed = await archive.passkeys_of(holder.player_id) if holder is not None else []
            except ArchiveError as exc:
                raise _unavailable(exc) from None
        challenge = state.passkey_challenges.issue("login", None, now)
        options = options_to_json(
            generate_authentication_options(
                rp_id=rp_id,
                challenge=challenge,
                timeout=life_ms,
                allow_credentials=_descriptors(allowed),
                user_verification=UserVerificationRequirement.PREFERRED,
            )
        )
    expires_ms = state.clock.wall_ms() + life_ms
    session.reply(PasskeyOptions(req=msg.req, options=options, expires_ms=expires_ms))


def _challenge_of(credential: str) -> tuple[bytes, str]:
    """The challenge a browser's credential JSON answers (from its client data) and the
    credential's id. Raises ValueError for anything that is not such JSON."""
    data = json.loads(credential)
    if not isinstance(data, dict) or not isinstance(data.get("response"), dict):
        raise ValueError("no response")
    client_data = json.loads(base64url_to_bytes(str(data["response"]["clientDataJSON"])))
    credential_id = str(data.get("rawId") or data["id"])
    return base64url_to_bytes(str(client_data["challenge"])), credential_id


async def passkey_finish(state: ServerState, session: Session, msg: PasskeyFinish) -> None:
    """Check ``msg.credential`` against the challenge it answers: a registration keeps the new
    passkey (`Claimed`), a login makes this connection the passkey's player (`Welcome`). The
    challenge is spent either way. Raises ProtocolError (protocol_version; challenge_expired:
    its ``passkey_challenge_s`` passed; bad_passkey: not a credential, a challenge this server
    did not make or that was used, another player's registration, a signature that does not
    verify, an unknown passkey; unavailable)."""
    if msg.protocol != PROTOCOL_VERSION:
        raise ProtocolError(ErrorCode.PROTOCOL_VERSION, f"this server speaks protocol {PROTOCOL_VERSION}")
    rp_id, origin = _party(state)
    archive = _archive(state)
    try:
        challenge, credential_id = _challenge_of(msg.credential)
    except (ValueError, KeyError, TypeError):
        raise ProtocolError(
            ErrorCode.BAD_PASSKEY, "that is not a passkey credential (WebAuthn JSON)", msg.req
        ) from None
    try:
        pending = state.passkey_challenges.take(challenge, state.clock.monotonic())
    except ChallengeExpired:
        raise ProtocolError(
            ErrorCode.CHALLENGE_EXPIRED, "the passkey challenge expired: begin again (passkey_begin)", msg.req
        ) from None
    except UnknownChallenge:
        raise ProtocolError(
            ErrorCode.BAD_PASSKEY, "that passkey answers no challenge of this server (or one used already)", msg.req
        ) from None
    now_ms = state.clock.wall_ms()
    if pending.purpose == "register":
        player = session.player
        if player is None or player.id != pending.player_id:
            raise ProtocolError(ErrorCode.BAD_PASSKEY, "that challenge was made for another player", msg.req)
        await _register(archive, session, player, msg, challenge, rp_id, origin, now_ms)
        return
    try:
        kept = await archive.passkey(credential_id)
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    if kept is None:
        raise ProtocolError(ErrorCode.BAD_PASSKEY, "this server keeps no such passkey", msg.req)
    try:
        verified = verify_authentication_response(
            credential=msg.credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=kept.public_key,
            credential_current_sign_count=kept.sign_count,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise ProtocolError(ErrorCode.BAD_PASSKEY, f"the passkey did not verify: {exc}"[:200], msg.req) from None
    try:
        await archive.use_passkey(kept.credential_id, verified.new_sign_count, now_ms)
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    await _become(state, session, kept.player_id)


async def _register(
    archive: Archive,
    session: Session,
    player: Player,
    msg: PasskeyFinish,
    challenge: bytes,
    rp_id: str,
    origin: str,
    now_ms: int,
) -> None:
    """Verify a registration and keep its passkey for ``player``; answer `Claimed`."""
    try:
        verified = verify_registration_response(
            credential=msg.credential, expected_challenge=challenge, expected_rp_id=rp_id, expected_origin=origin
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise ProtocolError(ErrorCode.BAD_PASSKEY, f"the passkey did not verify: {exc}"[:200], msg.req) from None
    passkey = Passkey(
        credential_id=bytes_to_base64url(verified.credential_id),
        player_id=player.id,
        public_key=verified.credential_public_key,
        sign_count=verified.sign_count,
        created_ms=now_ms,
        used_ms=now_ms,
    )
    try:
        added = await archive.put_passkey(passkey)
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    if not added:
        raise ProtocolError(ErrorCode.BAD_PASSKEY, "that passkey is kept already", msg.req)
    _players_log.info(
        "%s added a passkey", player.name, extra=fields("passkey_added", player=player.id, player_name=player.name)
    )
    session.reply(Claimed(req=msg.req, name=player.name))
