"""Accounts: proving an e-mail address, and the rates of everything that sends mail.

Each team is a run quota and a set of probes of the hidden test set, so a
campaign may ask more of the account that registers a team than a password
(``Campaign.team_admission``): a verified e-mail address, or an organiser's
approval (:mod:`campaign.services.teams`).

The verification link is Django's own password-reset machinery with another
salt: ``uid`` and a token (HMAC of ``SECRET_KEY``) over the account, its
address and whether it is verified yet, valid ``PASSWORD_RESET_TIMEOUT``
seconds. Nothing is stored until the link is followed; a link stops working
once it has been used, or when the account's address changes.
"""
from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext
from rest_framework.throttling import SimpleRateThrottle

from campaign import audit
from campaign.models import VerifiedEmail
from campaign.throttles import AddressThrottle

logger = logging.getLogger(__name__)


class EmailVerificationTokens(PasswordResetTokenGenerator):
    key_salt = "parseval.campaign.accounts.EmailVerificationTokens"

    def _make_hash_value(self, user, timestamp) -> str:
        return f"{user.pk}|{user.email.lower()}|{is_verified(user)}|{timestamp}"


tokens = EmailVerificationTokens()


def is_verified(user) -> bool:
    """The account has proved that it receives mail at its current address."""
    if not user.is_authenticated or not user.email:
        return False
    proof = VerifiedEmail.objects.filter(user=user).first()
    return proof is not None and proof.email.lower() == user.email.lower()


def site_of(request) -> str:
    """The scheme and host a request came to (``https://parseval.example.org``): what links in mail sent
    later, from a task, start with."""
    return f"{request.scheme}://{request.get_host()}"


def verification_link(site: str, user) -> str:
    path = reverse("portal:verify_email", kwargs={"uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
                                                  "token": tokens.make_token(user)})
    return site + path


def send_verification(site: str, user) -> None:
    body = render_to_string("registration/verify_email.txt", {"user": user, "link": verification_link(site, user),
                                                               "days": settings.PASSWORD_RESET_TIMEOUT // 86400})
    try:
        send_mail(gettext("Confirm your e-mail address"), body, None, [user.email])
    except Exception:  # a relay that is down: logged; the person can ask for another link
        logger.exception("could not send the e-mail confirmation link to %s", user.email)


def verify(uidb64: str, token: str, *, request=None):
    """The account the link proves, now verified; None if the link is wrong, used or expired."""
    try:
        user = get_user_model().objects.get(pk=int(urlsafe_base64_decode(uidb64).decode()))
    except (TypeError, ValueError, OverflowError, get_user_model().DoesNotExist):
        return None
    if not user.email or not tokens.check_token(user, token):
        return None
    VerifiedEmail.objects.update_or_create(user=user, defaults={"email": user.email})
    audit.record("account.verify_email", actor=user, target=user.get_username(), request=request)
    return user


# -- rates ---------------------------------------------------------------------------------------------

def _digest(value: str) -> str:
    """What the cache keeps of an address or account: a hash of the lower-cased value, never the value."""
    return hashlib.sha256(value.strip().lower().encode()).hexdigest()[:32]


class _PerAccount(SimpleRateThrottle):
    """Per named account, whoever asks: for requests only the account itself can make (logged in)."""

    def __init__(self, value: str):
        self.value = value
        super().__init__()

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": _digest(self.value)}


class _PerClientAndAddress(AddressThrottle):
    """Per client address *and* the e-mail address it names together.

    Keyed on the address asked for alone, three requests from anyone would lock the owner out of
    their own reset for an hour; keyed on the pair, a stranger spends only their own budget, and the
    owner's requests, from the owner's own connection, count apart."""

    def __init__(self, email: str):
        self.email = email
        super().__init__()

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": f"{self.get_ident(request)}:{_digest(self.email)}"}


class PasswordResetAddressThrottle(AddressThrottle):
    scope = "password_reset"


class PasswordResetClientAndAddressThrottle(_PerClientAndAddress):
    scope = "password_reset_address"


class VerificationAddressThrottle(AddressThrottle):
    scope = "verification"


class VerificationAccountThrottle(_PerAccount):
    scope = "verification_account"


def password_reset_throttles(email: str) -> list:
    """Per client (whatever it names) and per client and address named: never per account alone."""
    return [PasswordResetAddressThrottle(), PasswordResetClientAndAddressThrottle(email)]


def verification_throttles(user) -> list:
    return [VerificationAddressThrottle(), VerificationAccountThrottle(str(user.pk))]
