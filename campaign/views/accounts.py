"""Sign-up; log in and out are Django's own views under /accounts/."""
from __future__ import annotations

from django.contrib.auth import login
from django.shortcuts import redirect, render

from campaign.forms import SignUpForm
from campaign.throttles import SignupThrottle, refused_by


def signup(request):
    if request.user.is_authenticated:
        return redirect("portal:home")
    if request.method == "POST" and (refused := refused_by(request, SignupThrottle())):
        return refused
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("portal:home")
    return render(request, "registration/signup.html", {"form": form})
