"""An app-registration certificate for the certificate flavour of the sitelib token: an RSA key,
a self-signed certificate, its SHA-1 thumbprint (as the identity platform shows it)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class AppCertificate:
    private_key_pem: str
    thumbprint: str  # SHA-1, upper-case hex
    public_key: object


def self_signed(key, common_name: str, *, extensions: list[tuple[object, bool]] = ()) -> x509.Certificate:
    """A certificate for `key`, signed by itself, valid from yesterday for 30 days."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(key, hashes.SHA256())


def make_app_certificate(common_name: str = "listing-app") -> AppCertificate:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = self_signed(key, common_name)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    thumbprint = cert.fingerprint(hashes.SHA1()).hex().upper()  # noqa: S303 - the platform's thumbprint is SHA-1
    return AppCertificate(private_key_pem=pem, thumbprint=thumbprint, public_key=key.public_key())
