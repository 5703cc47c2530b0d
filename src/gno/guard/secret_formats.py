"""Format rules: well-known token shapes (OpenAI, AWS, GitHub, Slack, PEM keys, JWTs, ...) and the
precise, format-based plugins of ``detect-secrets``.

Why: a token with a vendor prefix or a fixed structure is a secret wherever it appears, with no context
needed. detect-secrets runs in-process through ``analyze_string`` (never ``analyze_line``, which may try to
verify secrets over the network); its noisy high-entropy and keyword plugins are not used, the context
rules in ``secret_context`` replace them.
"""

from __future__ import annotations

import base64
import binascii
import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from gno.guard.secret_values import HEX_RE, has_base62_mix, is_placeholder, looks_random

Validator = Callable[[str], bool]


@dataclass(frozen=True)
class _FormatRule:
    """A token format. ``needles`` are substrings every match contains (cheap pre-check);
    ``folded`` means they are compared against the lower-cased text."""

    rule: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...]
    group: int = 0
    validate: Validator | None = None
    folded: bool = False


def _fmt(
    rule: str,
    pattern: str,
    needles: tuple[str, ...],
    *,
    group: int = 0,
    validate: Validator | None = None,
    folded: bool = False,
) -> _FormatRule:
    return _FormatRule(rule, re.compile(pattern), needles, group, validate, folded)


def _pem_in_base64(value: str) -> bool:
    """Whether the first bytes of a base64 value decode to a PEM private-key header."""
    head = value[:96]
    try:
        decoded = base64.b64decode(head[: len(head) - len(head) % 4]).decode("ascii", errors="replace")
    except (binascii.Error, ValueError):
        return False
    return decoded.startswith("-----BEGIN") and "PRIVATE KEY" in decoded


_B64URL = r"[A-Za-z0-9_-]"
_END = r"(?![A-Za-z0-9_-])"

# Key files span many lines and may exceed any window: matched over the whole text (bounded scans).
_KEY_FILE_RULES: tuple[_FormatRule, ...] = (
    _fmt(
        "private-key",
        r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,20000}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:(?:\\n|\r?\n)[A-Za-z0-9+/=:, -]+)*)",
        ("PRIVATE KEY",),
    ),
    _fmt(
        "private-key",
        r"PuTTY-User-Key-File-\d:[\s\S]{0,20000}?Private-MAC: ?[0-9a-fA-F]+",
        ("PuTTY-User-Key",),
    ),
    # A PEM private key base64-encoded once more (Kubernetes secrets, JSON config): ``LS0tLS1CRUdJTi`` is
    # ``-----BEGIN``; the decoded header must name a private key.
    _fmt("private-key", r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/]{20,20000}={0,2}", ("LS0tLS1CRUdJTi",), validate=_pem_in_base64),
)

_FORMAT_RULES: tuple[_FormatRule, ...] = (
    _fmt("age-secret-key", r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b", ("AGE-SECRET-KEY-",)),
    _fmt("anthropic-key", rf"\bsk-ant-(?:[a-z]{{2,8}}\d{{2}}-)?{_B64URL}{{20,}}{_END}", ("sk-ant-",)),
    _fmt(
        "openai-key",
        rf"\bsk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?({_B64URL}{{20,}}){_END}",
        ("sk-",),
        validate=has_base62_mix,
    ),
    _fmt(
        "aws-access-key",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        ("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    _fmt(
        "aws-secret-key",
        r"(?i:aws|amazon)[\w.-]{0,40}['\"]?\s*(?:=|:=|:|=>|,|\()\s*['\"]?"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        ("aws", "amazon"),
        group=1,
        validate=lambda v: not HEX_RE.match(v) and any(c.isupper() for c in v),
        folded=True,
    ),
    _fmt(
        "github-token",
        r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    _fmt("github-token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", ("github_pat_",)),
    _fmt(
        "gitlab-token",
        rf"\b(?:glpat|gldt|glft|glsoat|glrt|glptt|glcbt|glimt)-{_B64URL}{{20,}}{_END}",
        ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glptt-", "glcbt-", "glimt-"),
    ),
    _fmt("slack-token", r"\bxox[abposre]-[A-Za-z0-9-]{10,250}", ("xox",)),
    _fmt("slack-token", r"\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+", ("xapp-",)),
    _fmt(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
        ("hooks.slack.com",),
    ),
    _fmt(
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{30,}",
        ("/api/webhooks/",),
    ),
    _fmt("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247}\b", ("k_live_", "k_test_")),
    _fmt("stripe-key", r"\bwhsec_[A-Za-z0-9]{24,}\b", ("whsec_",)),
    _fmt("google-api-key", rf"\bAIza[0-9A-Za-z_-]{{35}}{_END}", ("AIza",)),
    _fmt("google-oauth-secret", rf"\bGOCSPX-{_B64URL}{{24,}}{_END}", ("GOCSPX-",)),
    _fmt("jwt", rf"\beyJ{_B64URL}{{8,}}\.eyJ{_B64URL}{{8,}}\.(?:{_B64URL}{{8,}})?{_END}", ("eyJ",)),
    # A JOSE header (``{"alg"`` or ``{"typ"``, base64url) and a dot before a payload that is not base64 JSON:
    # an encrypted or vendor-signed token, still a bearer credential.
    _fmt(
        "jwt",
        rf"\beyJ(?:hbGci|0eXAi){_B64URL}{{8,}}\.{_B64URL}{{20,}}(?:\.{_B64URL}{{8,}})?{_END}",
        ("eyJhbGci", "eyJ0eXAi"),
    ),
    _fmt("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    _fmt("docker-pat", rf"\bdckr_(?:pat|oat)_{_B64URL}{{24,}}{_END}", ("dckr_",)),
    _fmt("mapbox-secret-token", rf"\bsk\.eyJ{_B64URL}{{20,}}\.{_B64URL}{{20,}}{_END}", ("sk.eyJ",)),
    _fmt("pypi-token", rf"\bpypi-AgE{_B64URL}{{50,}}{_END}", ("pypi-AgE",)),
    _fmt("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}\b", ("hf_",), validate=has_base62_mix),
    _fmt("sendgrid-key", rf"\bSG\.{_B64URL}{{22}}\.{_B64URL}{{43}}{_END}", ("SG.",)),
    _fmt("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("_v1_",)),
    _fmt("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", ("shp",)),
    _fmt("twilio-key", r"\bSK[0-9a-fA-F]{32}\b", ("SK",)),
    _fmt("mailgun-key", r"\bkey-[0-9a-f]{32}\b", ("key-",)),
    _fmt("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ("dapi",)),
    _fmt("groq-key", r"\bgsk_[A-Za-z0-9]{48,}\b", ("gsk_",)),
    _fmt("xai-key", r"\bxai-[A-Za-z0-9]{60,}\b", ("xai-",)),
    _fmt("replicate-token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",)),
    _fmt("linear-key", r"\blin_api_[A-Za-z0-9]{40}\b", ("lin_api_",)),
    _fmt(
        "notion-token",
        r"\b(?:secret|ntn)_[A-Za-z0-9]{43,46}\b",
        ("secret_", "ntn_"),
        validate=has_base62_mix,
    ),
    # Modular-crypt password hashes (bcrypt, sha256/512-crypt, md5-crypt, yescrypt, argon2, Cisco type 8/9,
    # PBKDF2, scrypt) and Kerberos AS-REP/TGS hashes as cracking tools spell them: crackable offline.
    _fmt(
        "password-hash",
        r"\$(?:2[abxy]|1|5|6|8|9|apr1|y|gy|7|argon2(?:id|i|d)|pbkdf2[\w-]{0,12}|scrypt|krb5(?:asrep|tgs|pa))"
        r"\$[./A-Za-z0-9$=,+@:*-]{20,}",
        (
            "$2",
            "$1$",
            "$5$",
            "$6$",
            "$8$",
            "$9$",
            "$apr1$",
            "$y$",
            "$gy$",
            "$7$",
            "$argon2",
            "$pbkdf2",
            "$scrypt",
            "$krb5",
        ),
    ),
    # A webhook URL is its own credential: whoever holds it can post. The path after the hook segment goes.
    _fmt(
        "webhook-url",
        r"https?://[^\s/'\"<>]+/(?:[^\s/'\"<>]+/){0,4}?(?:webhooks?|hooks/catch|IncomingWebhook)/([^\s'\"<>)\]]{12,})",
        ("hook",),
        group=1,
        validate=lambda v: any(c.isdigit() for c in v),
    ),
    # ``Authorization: <scheme> <credential>`` for the schemes the bearer and basic rules below do not name
    # (``SSWS``, ``token``, ``Bot``, ``GenieKey``, ...).
    _fmt(
        "authorization-header",
        r"(?i:\bauthorization\b)['\"]?\s*[:=]\s*['\"]?(?!(?i:bearer|basic)\b)[A-Za-z][\w-]{1,15}\s+"
        r"([A-Za-z0-9._~+/=-]{16,})",
        ("authorization",),
        group=1,
        validate=lambda v: looks_random(v, 16),
        folded=True,
    ),
    _fmt("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b", ("dp.",)),
    _fmt("azure-storage-key", r"AccountKey=([A-Za-z0-9+/]{86,88}={0,2})", ("AccountKey=",), group=1),
    _fmt(
        "bearer-token",
        r"(?i:\bauthorization\b['\"]?\s*[:=]\s*['\"]?bearer|\bbearer)\s+([A-Za-z0-9._~+/=-]{16,})",
        ("bearer",),
        group=1,
        validate=lambda v: looks_random(v, 16),
        folded=True,
    ),
    _fmt(
        "basic-auth",
        r"(?i:\bauthorization\b['\"]?\s*[:=]\s*['\"]?basic)\s+([A-Za-z0-9+/]{8,}={0,2})",
        ("basic",),
        group=1,
        folded=True,
    ),
)


def key_file_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    yield from _matches(_KEY_FILE_RULES, text)


def format_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    yield from _matches(_FORMAT_RULES, text)


def _matches(rules: tuple[_FormatRule, ...], text: str) -> Iterator[tuple[str, int, int]]:
    folded = text.lower()
    for rule in rules:
        haystack = folded if rule.folded else text
        if not any(needle in haystack for needle in rule.needles):
            continue
        for match in rule.pattern.finditer(text):
            # Validators look at the token body: the last capture group, or the whole match.
            body = match.group(match.re.groups or 0)
            if rule.validate is not None and not rule.validate(body):
                continue
            yield rule.rule, match.start(rule.group), match.end(rule.group)


# --------------------------------------------------------------------------------------------------
# detect-secrets plugins (format-based only)
# --------------------------------------------------------------------------------------------------

# (module, class, rule id, gate regex, gate on lower-cased text?). The gate is a cheap necessary
# condition for the plugin to find anything, so most texts skip most plugins.
_DS_PLUGINS: tuple[tuple[str, str, str, str, bool], ...] = (
    ("aws", "AWSKeyDetector", "aws-access-key", r"akia|asia|abia|acca|a3t|aws", True),
    ("artifactory", "ArtifactoryDetector", "artifactory-token", r"AKC|AP[\dA-F]", False),
    ("azure_storage_key", "AzureStorageKeyDetector", "azure-storage-key", r"accountkey=", True),
    ("basic_auth", "BasicAuthDetector", "connection-string-password", r"://\S*@", False),
    (
        "cloudant",
        "CloudantDetector",
        "cloudant-credentials",
        r"cloudant|cl(?:ou)?[_-]?(?:api)?(?:key|pw|pass|token)",
        True,
    ),
    ("discord", "DiscordBotTokenDetector", "discord-token", r"[MNO][\w-]{23,25}\.", False),
    ("github_token", "GitHubTokenDetector", "github-token", r"gh[pousr]_", False),
    ("gitlab_token", "GitLabTokenDetector", "gitlab-token", r"gl[a-z]{1,6}-|GR1348941", False),
    ("ibm_cloud_iam", "IbmCloudIamDetector", "ibm-cloud-iam-key", r"[\w-]{44}", False),
    ("ibm_cos_hmac", "IbmCosHmacDetector", "ibm-cos-hmac", r"[a-f0-9]{32}", False),
    ("jwt", "JwtTokenDetector", "jwt", r"eyJ", False),
    ("mailchimp", "MailchimpDetector", "mailchimp-key", r"-us\d", False),
    ("npm", "NpmDetector", "npm-token", r"_authtoken", True),
    ("openai", "OpenAIDetector", "openai-key", r"T3BlbkFJ", False),
    ("pypi_token", "PypiTokenDetector", "pypi-token", r"pypi-", False),
    ("sendgrid", "SendGridDetector", "sendgrid-key", r"SG\.", False),
    ("slack", "SlackDetector", "slack-token", r"xox|hooks\.slack\.com", True),
    (
        "softlayer",
        "SoftlayerDetector",
        "softlayer-credentials",
        r"softlayer|sl[_-]?(?:api)?(?:key|pw|pass|token)",
        True,
    ),
    ("square_oauth", "SquareOAuthDetector", "square-oauth-secret", r"sq0csp-", False),
    ("stripe", "StripeDetector", "stripe-key", r"k_live_", False),
    ("telegram_token", "TelegramBotTokenDetector", "telegram-token", r"\d{8,10}:", False),
    ("twilio", "TwilioKeyDetector", "twilio-key", r"AC[a-z0-9]{32}|SK[a-z0-9]{32}", False),
)
_DS_STRIP = " \t\r\n'\"=:`"


@dataclass(frozen=True)
class _DsPlugin:
    rule: str
    plugin: Any
    gate: re.Pattern[str]
    folded: bool


@cache
def _detect_secrets_plugins() -> tuple[_DsPlugin, ...]:
    """Instantiate the plugins once; an unavailable plugin is skipped, not fatal.

    Without detect-secrets itself the guard would silently miss most credential formats, so that
    is an error naming the extra to install.
    """
    from gno.extras import require

    require("guard", "the Memory Guard", "detect_secrets")
    loaded: list[_DsPlugin] = []
    for module_name, class_name, rule, gate, folded in _DS_PLUGINS:
        try:
            module = importlib.import_module(f"detect_secrets.plugins.{module_name}")
            loaded.append(_DsPlugin(rule, getattr(module, class_name)(), re.compile(gate), folded))
        except (ImportError, AttributeError):  # pragma: no cover - depends on the installed version
            continue
    return tuple(loaded)


def detect_secrets_candidates(text: str) -> Iterator[tuple[str, int, int]]:
    folded = text.lower()
    for entry in _detect_secrets_plugins():
        if not entry.gate.search(folded if entry.folded else text):
            continue
        for raw in set(entry.plugin.analyze_string(text)):
            value = str(raw).strip(_DS_STRIP)
            if is_placeholder(value) or not looks_random(value, 8):
                continue
            yield from _occurrences(text, value, _refine_ds_rule(entry.rule, value))


def _refine_ds_rule(rule: str, value: str) -> str:
    if rule == "aws-access-key" and not re.match(r"(?:A3T|AKIA|ASIA|ABIA|ACCA)", value):
        return "aws-secret-key"
    if rule == "slack-token" and value.startswith("https://"):
        return "slack-webhook"
    return rule


def _occurrences(text: str, value: str, rule: str) -> Iterator[tuple[str, int, int]]:
    start = text.find(value)
    while start >= 0:
        yield rule, start, start + len(value)
        start = text.find(value, start + len(value))
