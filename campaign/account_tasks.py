"""Sign-up and password reset finished off the request, so that neither tells whether an address is known.

A request about an e-mail address must answer the same whether or not an account has it: the
same page, and the same time within noise. What differs between the two is work. At a reset, a
known address gets a token, two rendered templates and a mail, an unknown one nothing (measured
in the request: 6.8 ms against 4.4 ms, issue 34). At sign-up, an unknown address gets a new
account and its confirmation link; a known one must get no second account (one account per
address is what e-mail admission counts), and saying so on the form told anyone which addresses
have an account.

So the request does only what is the same on both paths (check the form, hash the password,
enqueue one task with the same arguments) and answers; the task, on the default queue, does the
part that differs and writes to the address itself, the only party entitled to know. A stranger
learns nothing; the owner of a known address learns that someone tried, with a link to log in or
to reset. ``benchmarks/account_timing.py`` measures both requests on both paths.

The sign-up task carries the password already hashed (Django's hasher, as the account row keeps
it), never in clear, through the broker. Both tasks carry the language the request was answered in,
so that the mail reads in the language of the page that asked for it (a worker has no request to
take it from); a task queued without one writes in the site's default.
"""
from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from campaign import accounts

logger = logging.getLogger(__name__)


@shared_task(name="campaign.send_password_reset", ignore_result=True)
def send_password_reset(email: str, *, domain: str, use_https: bool, language: str | None = None) -> None:
    """Django's own reset mail to every active account of ``email`` (none when no account has it)."""
    form = PasswordResetForm(data={"email": email})
    with translation.override(language or settings.LANGUAGE_CODE):
        if form.is_valid():  # Django's form logs a relay that fails, and sends nothing to an unknown address
            form.save(domain_override=domain, use_https=use_https)


@shared_task(name="campaign.complete_sign_up", ignore_result=True)
def complete_sign_up(username: str, email: str, password_hash: str, *, site: str, language: str | None = None
                     ) -> None:
    """Create the account and send its confirmation link; or, if an account has the address already,
    tell its owner (and create nothing)."""
    with translation.override(language or settings.LANGUAGE_CODE):
        _complete_sign_up(username, email, password_hash, site=site)


def _complete_sign_up(username: str, email: str, password_hash: str, *, site: str) -> None:
    users = get_user_model()
    owner = users.objects.filter(email__iexact=email).order_by("pk").first()
    if owner is not None and (owner.get_username(), owner.password) == (username, password_hash):
        return  # this very sign-up, delivered again after a worker was lost: its account exists
    if owner is not None:
        _write(owner.email, gettext("An account already has this address"), "registration/signup_known_address.txt",
               {"user": owner, "site": site})
        return
    try:
        with transaction.atomic():
            user = users.objects.create(username=username, email=email, password=password_hash)
    except IntegrityError:  # the name was free when the form was checked, and taken since
        _write(email, gettext("Your account was not created"), "registration/signup_name_taken.txt",
               {"username": username, "site": site})
        return
    accounts.send_verification(site, user)


def _write(email: str, subject: str, template: str, context: dict) -> None:
    context = {**context, "login": context["site"] + reverse("login"),
               "reset": context["site"] + reverse("password_reset"), "signup": context["site"] + reverse("portal:signup")}
    try:
        send_mail(subject, render_to_string(template, context), None, [email])
    except Exception:  # a relay that is down: logged; the person can sign up or reset again
        logger.exception("could not send the sign-up message to %s", email)
