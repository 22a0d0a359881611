"""The audit log's address: REMOTE_ADDR, unless a configured trusted proxy forwarded the request."""
from __future__ import annotations

import pytest

from campaign.audit import client_ip


def _request(rf, remote, forwarded=None):
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return rf.get("/", **extra)


def test_a_client_cannot_choose_its_address_with_x_forwarded_for(rf, settings):
    settings.PARSEVAL_TRUSTED_PROXIES = []
    assert client_ip(_request(rf, "198.51.100.7", "203.0.113.9")) == "198.51.100.7"


@pytest.mark.parametrize("proxies, forwarded, expected", [
    # One trusted proxy: the address it received the request from is the last hop.
    (["10.0.0.1"], "203.0.113.9", "203.0.113.9"),
    # Whatever the client wrote to the left of it is not believed.
    (["10.0.0.1"], "1.2.3.4, 203.0.113.9", "203.0.113.9"),
    # Two trusted proxies (a network and an address): skip both.
    (["10.0.0.0/8"], "1.2.3.4, 203.0.113.9, 10.0.0.2", "203.0.113.9"),
    # A hop that is not an IP address stops the walk at the last address a proxy vouched for.
    (["10.0.0.1"], "<script>", "10.0.0.1"),
    (["10.0.0.1"], "", "10.0.0.1"),
])
def test_behind_trusted_proxies_the_list_is_read_from_the_right(rf, settings, proxies, forwarded, expected):
    settings.PARSEVAL_TRUSTED_PROXIES = proxies
    assert client_ip(_request(rf, "10.0.0.1", forwarded)) == expected


def test_an_untrusted_sender_is_recorded_even_when_proxies_are_configured(rf, settings):
    settings.PARSEVAL_TRUSTED_PROXIES = ["10.0.0.1"]
    assert client_ip(_request(rf, "198.51.100.7", "203.0.113.9")) == "198.51.100.7"


@pytest.mark.parametrize("remote", ["", "not-an-address", "=cmd|' /C calc'!A0"])
def test_an_invalid_remote_address_is_recorded_as_none(rf, settings, remote):
    settings.PARSEVAL_TRUSTED_PROXIES = []
    assert client_ip(_request(rf, remote)) is None


def test_ipv6_addresses_are_normalised(rf, settings):
    settings.PARSEVAL_TRUSTED_PROXIES = []
    assert client_ip(_request(rf, "2001:DB8:0:0::1")) == "2001:db8::1"
