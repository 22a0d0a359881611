"""What sign-up and password reset tell a stranger, tried as the adversary of issue 34: whether an address
has an account (the answer), and whether the owner can still reset their own password (the throttle).

The time of the answers is measured in ``benchmarks/account_timing.py``, not asserted here."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from tests import factories

PASSWORD = "a-long-pass-phrase-34"
OWNER = "owner@example.org"


@pytest.fixture
def owner(db):
    return factories.make_user("owner", password="owners-own-pass-phrase", email=OWNER)


def _answer(response, *, address: str, name: str) -> dict:
    """All a client sees of an answer, with the address and name it sent written out of the page."""
    client = response.client

    def page(body: str) -> str:
        for value in (address, name):
            body = body.replace(value, "<given>")
        # a fresh token per client, on every page that has a form (the language switch is on all of them)
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", body)

    return {"status": response.status_code, "location": response.get("Location"),
            "cookies": sorted(response.cookies), "content_type": response.get("Content-Type"),
            "retry_after": response.get("Retry-After"), "page": page(response.content.decode()),
            "session_keys": sorted(client.session.keys()),
            "next_page": page(client.get(response["Location"]).content.decode()) if response.get("Location") else None}


def sign_up(name: str, address: str):
    client = Client(REMOTE_ADDR="198.51.100.7")
    return client.post(reverse("portal:signup"), {"username": name, "email": address,
                                                  "password1": PASSWORD, "password2": PASSWORD})


def test_sign_up_answers_the_same_for_a_known_and_an_unknown_address(owner):
    # the adversary signs up with an address it wants to test, and with one nobody has
    known = sign_up("prober-one", OWNER)
    unknown = sign_up("prober-two", "nobody-yet@example.org")
    assert _answer(known, address=OWNER, name="prober-one") == \
        _answer(unknown, address="nobody-yet@example.org", name="prober-two")
    assert known.status_code == 302  # not the form again, with or without an error
    # one account per address still: the known address got no second account, and its owner is told
    users = get_user_model().objects
    assert users.filter(email__iexact=OWNER).count() == 1 and not users.filter(username="prober-one").exists()
    assert users.filter(username="prober-two", email="nobody-yet@example.org").exists()
    to_owner = [m for m in mail.outbox if m.to == [OWNER]]
    assert len(to_owner) == 1 and "already has" in to_owner[0].body and "owner" in to_owner[0].body
    assert reverse("password_reset") in to_owner[0].body
    [to_new] = [m for m in mail.outbox if m.to == ["nobody-yet@example.org"]]
    assert "/accounts/verify/" in to_new.body


def test_sign_up_with_a_known_address_in_other_case_makes_no_account(owner):
    sign_up("prober", OWNER.upper())
    assert not get_user_model().objects.filter(username="prober").exists()


def test_reset_answers_the_same_for_a_known_and_an_unknown_address(owner):
    def reset(address):
        return Client(REMOTE_ADDR="198.51.100.8").post(reverse("password_reset"), {"email": address})

    known, unknown = reset(OWNER), reset("nobody@example.org")
    assert _answer(known, address=OWNER, name="owner") == _answer(unknown, address="nobody@example.org",
                                                                  name="owner")
    assert [m.to for m in mail.outbox] == [[OWNER]]


def test_a_stranger_cannot_block_the_owners_reset(owner):
    # With the production rates: strangers ask for the owner's reset, from a few addresses, until refused.
    for n in range(1, 6):
        stranger = Client(REMOTE_ADDR=f"203.0.113.{n}")
        codes = [stranger.post(reverse("password_reset"), {"email": OWNER}).status_code for _ in range(5)]
        assert codes[0] == 302 and codes[-1] == 429  # each stranger is throttled...
    sent_to_strangers = len(mail.outbox)
    # ...and the owner, from their own connection, still gets their link
    response = Client(REMOTE_ADDR="192.0.2.99").post(reverse("password_reset"), {"email": OWNER})
    assert response.status_code == 302 and "Retry-After" not in response
    assert len(mail.outbox) == sent_to_strangers + 1 and mail.outbox[-1].to == [OWNER]


def test_a_client_asking_for_many_addresses_is_still_throttled(db):
    client = Client(REMOTE_ADDR="203.0.113.50")
    codes = [client.post(reverse("password_reset"), {"email": f"x{n}@example.org"}).status_code for n in range(12)]
    assert codes[:10] == [302] * 10 and codes[10:] == [429, 429]


def test_a_name_taken_between_the_form_and_the_task_makes_no_account(owner):
    from campaign.account_tasks import complete_sign_up

    complete_sign_up("owner", "late@example.org", "!", site="http://testserver")
    assert not get_user_model().objects.filter(email="late@example.org").exists()
    [message] = mail.outbox
    assert message.to == ["late@example.org"] and "/signup/" in message.body


def test_a_sign_up_delivered_twice_writes_once(db):
    from campaign.account_tasks import complete_sign_up

    # a worker lost after the account was made: the task comes again (acks late), and must not tell
    # the new account's owner that their address "already has an account"
    complete_sign_up("twice", "twice@example.org", "pbkdf2_sha256$1$salt$hash", site="http://testserver")
    complete_sign_up("twice", "twice@example.org", "pbkdf2_sha256$1$salt$hash", site="http://testserver")
    assert get_user_model().objects.filter(email="twice@example.org").count() == 1
    assert len(mail.outbox) == 1 and "/accounts/verify/" in mail.outbox[0].body
