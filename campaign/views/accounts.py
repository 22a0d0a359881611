"""Sign-up, e-mail verification and a throttled password reset; log in and out are Django's own views
under /accounts/ (django-axes locks an account at one address after repeated failures).

Sign-up and reset answer the same, in the same time, whether or not an account has the address given:
the part that differs runs in a task (:mod:`campaign.account_tasks`)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language, gettext as _
from django.views.decorators.http import require_POST

from campaign import account_tasks, accounts
from campaign.forms import SignUpForm
from campaign.throttles import SignupThrottle, refused_by


def signup(request):
    if request.user.is_authenticated:
        return redirect("portal:home")
    if request.method == "POST" and (refused := refused_by(request, SignupThrottle())):
        return refused
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save(commit=False)  # not saved: hashes the password, as the account row will keep it
        account_tasks.complete_sign_up.delay(user.get_username(), user.email, user.password,
                                             site=accounts.site_of(request), language=get_language())
        return redirect("portal:signup_done")
    return render(request, "registration/signup.html", {"form": form})


def signup_done(request):
    return render(request, "registration/signup_done.html")


def verify_email(request, uidb64: str, token: str):
    user = accounts.verify(uidb64, token, request=request)
    return render(request, "registration/verify_email_done.html", {"verified": user}, status=200 if user else 400)


@login_required
@require_POST
def resend_verification(request):
    if (refused := refused_by(request, *accounts.verification_throttles(request.user))):
        return refused
    if accounts.is_verified(request.user):
        messages.info(request, _("Your e-mail address is already confirmed."))
    elif request.user.email:
        accounts.send_verification(accounts.site_of(request), request.user)
        messages.info(request, _("We sent a new link to %(email)s.") % {"email": request.user.email})
    else:
        messages.error(request, _("Your account has no e-mail address; ask the organisers to add one."))
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        target = "portal:home"
    return redirect(target)


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset by e-mail, throttled per client address and per client and address asked for; the mail
    goes from a task, so that neither the answer nor its time says whether an account has the address."""

    def post(self, request, *args, **kwargs):
        refused = refused_by(request, *accounts.password_reset_throttles(request.POST.get("email", "")))
        return refused or super().post(request, *args, **kwargs)

    def form_valid(self, form):
        account_tasks.send_password_reset.delay(form.cleaned_data["email"], domain=self.request.get_host(),
                                                use_https=self.request.is_secure(), language=get_language())
        return HttpResponseRedirect(self.get_success_url())
