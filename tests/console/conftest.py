import pytest


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # The default hasher costs ~0.3 s per user; these tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
