"""Issue 42: where the home service listens and who may reach it: loopback unless told; off loopback only
with TLS or behind a proxy's https address; the Hosts and Origins the SDK's DNS-rebinding check allows."""

from __future__ import annotations

import pytest

from zwave_mcp.service.http import ServiceSetupError, exposure_for, parse_listen


def test_the_default_is_loopback_on_8765() -> None:
    exposure = exposure_for(None)
    assert (exposure.host, exposure.port, exposure.mcp_url) == (
        "127.0.0.1",
        8765,
        "http://127.0.0.1:8765/mcp",
    )
    security = exposure.transport_security()
    assert security.enable_dns_rebinding_protection
    assert security.allowed_hosts == ["127.0.0.1:8765", "localhost:8765", "[::1]:8765"]
    assert "http://localhost:8765" in security.allowed_origins


@pytest.mark.parametrize(
    ("text", "want"),
    [("9000", ("127.0.0.1", 9000)), ("localhost:9001", ("localhost", 9001)), ("[::1]:9002", ("::1", 9002))],
)
def test_host_and_port(text: str, want: tuple[str, int]) -> None:
    assert parse_listen(text) == want


@pytest.mark.parametrize("text", ["http", "0.0.0.0:0", "host:99999"])
def test_a_bad_listen_address_is_one_clear_line(text: str) -> None:
    with pytest.raises(ServiceSetupError, match=r"\[HOST:\]PORT"):
        parse_listen(text)


def test_a_bind_others_can_reach_needs_tls_or_a_proxy() -> None:
    with pytest.raises(ServiceSetupError, match=r"--http-tls-cert and --http-tls-key.*--behind-proxy"):
        exposure_for("0.0.0.0:8765")
    with pytest.raises(ServiceSetupError, match="both"):
        exposure_for("192.168.1.5:8765", tls_cert="cert.pem")
    tls = exposure_for("192.168.1.5:8765", tls_cert="cert.pem", tls_key="key.pem")
    assert tls.mcp_url == "https://192.168.1.5:8765/mcp"
    assert tls.transport_security().allowed_origins == ["https://192.168.1.5:8765"]


def test_behind_a_proxy_its_https_address_is_the_only_host_and_origin() -> None:
    exposure = exposure_for("0.0.0.0:8765", behind_proxy="https://home.example.net/")
    assert exposure.base_url == "https://home.example.net"
    security = exposure.transport_security()
    assert security.allowed_hosts == ["home.example.net"]
    assert security.allowed_origins == ["https://home.example.net"]
    for wrong in ("http://home.example.net", "https://home.example.net/mcp", "home.example.net"):
        with pytest.raises(ServiceSetupError, match="public https address"):
            exposure_for("8765", behind_proxy=wrong)
