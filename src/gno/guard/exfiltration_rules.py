"""Rules for text that makes an agent act: exfiltration of secrets and data, and tool-call syntax.

Why together: both turn a recalled memory into an *action* (a request to an attacker's URL, a forged
tool call) rather than into words in the answer. Mentions are never excused here: a quoted payload still
carries the payload.
"""

from __future__ import annotations

from collections.abc import Iterator

from gno.guard.phrases import alts, phrase, phrase_hits
from gno.guard.text_views import TextViews

_EXFIL_VERB = (
    r"(?:send|sending|post|posting|upload|uploading|forward|forwarding|e-?mail|emailing|mail|transmit|exfiltrate|leak"
    r"|submit|share|deliver|relay|export|pipe|beacon|sync|push|attach|append|embed|dm|message|text|output|print|write"
    r"|dump|save|log|report|copy|put|include|publish|transfer|move|store)"
)
_N_EXFIL_VERB = alts(
    "send|post|upload|forward|mail|transmit|exfiltrat|leak|submit|share|deliver|relay|export|"
    "pipe|beacon|sync|push|attach|append|embed|dm|message|text|output|print|write|dump|save|"
    "log|report|copy|put|include|publish|transfer|move|store"
)
_EXFIL_SENSITIVE = (
    r"(?:api[\s_-]?keys?|passwords?|passwd|passphrases?|credentials?|creds|secrets?|tokens?|access\s+keys?|private\s+keys?"
    r"|ssh\s+keys?|\.ssh\b|id_rsa|id_ed25519|\.env\b|env(?:ironment)?\s+(?:variables|vars|file)|env\s+vars?|cookies?"
    r"|session\s+(?:ids?|tokens?|cookies?|data)|(?:conversation|chat)\s+(?:history|logs?|transcripts?)"
    r"|(?:entire|full|whole)\s+conversation|user'?s?\s+(?:data|information|details|emails?|files|messages|password"
    r"|credentials|address|location|contacts|history|personal\s+\w+|private\s+\w+)|personal\s+(?:data|information"
    r"|details|info)|bank(?:ing)?\s+(?:details|information|info|account)|credit\s+card|social\s+security|\bssn\b"
    r"|system\s+prompt|memor(?:y|ies)|stored\s+(?:notes|data|records)|keychain|seed\s+phrase|recovery\s+phrase"
    r"|wallet\s+(?:seed|keys?)|2fa\s+codes?|one[\s-]time\s+(?:codes?|passwords?))"
)
_N_SENSITIVE = alts(
    "key|passw|passphrase|credential|creds|secret|token|.ssh|id_rsa|id_ed25519|env|cookie|"
    "session|history|log|transcript|conversation|user|personal|bank|credit card|"
    "social security|ssn|system prompt|memor|stored|keychain|seed|recovery|2fa|one-time|"
    "one time"
)
_EXFIL_TARGET = (
    r"(?:(?:https?|s?ftp|s3|gs|wss?)://|\bwww\.|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|xyz|ru|cn|tk|top|info"
    r"|biz|site|online|app|dev|me|co|ly|sh|cc|su|pw|click|link|live|to)\b|\bwebhook|\bpastebin|\bngrok|\brequestbin"
    r"|\battacker|(?:this|that|the\s+following|my|our|an?\s+external|a\s+remote|the\s+remote|an?\s+outside)\s+"
    r"(?:url|endpoint|address|server|link|webhook|site|domain|e-?mail(?:\s+address)?|inbox|host|ip)"
    r"|(?:every|each|all|any)\s+(?:links?|urls?|images?|image\s+urls?|requests?)"
    r"|\+\d[\d\s().-]{6,}\d|\bvia\s+(?:sms|text\s+message|whatsapp|telegram|signal)\b"
    r"|(?:an?\s+|the\s+)?public\s+(?:gist|repo(?:sitory)?|bucket|page|channel|paste|pastebin)|\bgists?\b)"
)
_BEACON_QUERY = (
    r"\?[^)\s\"'>]*(?:=\s*(?:\{|\[|<|\$|%7b|%5b|%3c)|\b(?:data|d|secret|token|key|password|pwd|conversation|chat"
    r"|history|memory|payload|exfil|leak|prompt|context|creds?|credentials|session|cookie|info|msg|message|content"
    r"|text|q)=)"
)
_SECRET_FILE = (
    r"(?:~/\.ssh/(?![\w.-]*\.pub)[\w.-]+|\bid_(?:rsa|ed25519|ecdsa)\b(?!\.pub)|\.aws/credentials|/etc/shadow"
    r"|\.git-credentials|\.netrc\b|\.docker/config\.json)"
)
_N_SECRET_FILE = alts(
    "~/.ssh/|id_rsa|id_ed25519|id_ecdsa|.aws/credentials|/etc/shadow|.git-credentials|.netrc|.docker/config.json"
)
_EXFILTRATION = (
    phrase(
        rf"\b{_EXFIL_VERB}\b[^.\n]{{0,80}}?{_EXFIL_SENSITIVE}[^\n]{{0,80}}?\b(?:to|at|via|into|using|on|onto|through"
        rf"|with)\s+(?:[^\s.]+\s+){{0,3}}?{_EXFIL_TARGET}",
        _N_EXFIL_VERB,
        _N_SENSITIVE,
    ),
    phrase(
        rf"\b{_EXFIL_VERB}\s+(?:it|them|this|everything|all\s+of\s+(?:it|this|them))\s+(?:to|at)\s+{_EXFIL_TARGET}"
        r"(?=[^\n]{0,120}\b(?:secretly|silently|quietly|covertly|without\s+(?:telling|informing|notifying|alerting)))",
        ("secretly", "silently", "quietly", "covertly", "without"),
    ),
    phrase(
        rf"\b(?:secretly|silently|quietly|covertly)\s+{_EXFIL_VERB}\b[^.\n]{{0,100}}\b(?:to|at)\s+{_EXFIL_TARGET}",
        ("secretly", "silently", "quietly", "covertly"),
    ),
    phrase(rf"!\[[^\]\n]{{0,200}}\]\(\s*<?https?://[^)\s]+{_BEACON_QUERY}", ("![",), ("?",)),
    phrase(rf"<img\b[^>]{{0,200}}\bsrc\s*=\s*[\"']?https?://[^\"'\s>]+{_BEACON_QUERY}", ("<img",)),
    phrase(
        r"\b(?:reveal|print|output|display|dump|tell\s+me|give\s+me|read\s+out|disclose|leak)\b[^.\n]{0,40}?"
        r"\b(?:your|the\s+user'?s?|all\s+(?:the\s+)?(?:stored\s+|saved\s+)?)\s*(?:stored\s+|saved\s+)?"
        r"(?:api\s+keys?|passwords?|credentials|secrets|tokens|environment\s+variables|env\s+vars|private\s+keys?"
        r"|ssh\s+keys?)",
        (
            "reveal",
            "print",
            "output",
            "display",
            "dump",
            "tell me",
            "give me",
            "read out",
            "disclose",
            "leak",
        ),
        ("key", "password", "credential", "secret", "token", "variable", "env var"),
    ),
    phrase(
        rf"\b(?:print|output|display|show|dump|send|upload|reveal|attach|exfiltrate|leak|post|email)\b[^.\n]{{0,40}}?"
        rf"{_SECRET_FILE}",
        _N_SECRET_FILE,
    ),
    phrase(
        r"\b(?:curl|wget|nc|netcat|invoke-webrequest|iwr)\b[^\n]{0,200}(?:\$\(|`)\s*(?:cat|env|printenv|whoami|base64)\b",
        ("$(", "`"),
    ),
    phrase(
        r"\b(?:env|printenv|set|cat\s+\S*(?:\.env|\.ssh\S*|id_rsa|credentials|passwd|shadow))\s*\|\s*"
        r"(?:curl|wget|nc|netcat|base64\s*\|\s*curl)\b",
        ("|",),
    ),
    phrase(
        r"\bcurl\b[^\n]{0,200}(?:-d|--data(?:-binary|-raw|-urlencode)?|-f|--form|--upload-file|-t)\s*[\"']?[\w=]*@\S*"
        r"(?:\.env|\.ssh|id_rsa|credentials|passwd|shadow|\.aws)",
        ("curl",),
    ),
)

_TOOL_CALL_SYNTAX = (
    phrase(
        r"</?(?:tool_calls?|function_calls?|tool_use|tool_result|function_results?|tool_code|tool_response)\b[^>]{0,200}>",
        ("<tool", "</tool", "<function", "</function"),
    ),
    phrase(r"<(?:invoke|parameter)\s+name\s*=|</?antml:", ("<invoke", "<parameter", "antml:")),
    phrase(
        r"<\|(?:tool|tool_calls?|python_tag|function|plugin|tool_response|tool_result|call)[a-z_▁]{0,20}\|>"
        r"|\[tool_calls\]|\[available_tools\]",
        ("<|", "[tool_calls]", "[available_tools]"),
    ),
    phrase(r"<\|tool[▁_]call|tool[▁_]calls?[▁_]begin", ("tool▁call", "tool_call")),
    phrase(
        r"\{\s*\"(?:name|tool|tool_name|function|recipient_name|action)\"\s*:\s*\"[^\"\n]{1,80}\"\s*,\s*"
        r"\"(?:arguments|parameters|args|input|tool_input|kwargs|action_input)\"\s*:",
        ('"arguments"', '"parameters"', '"args"', '"input"', '"tool_input"', '"kwargs"', '"action_input"'),
    ),
    phrase(
        r"\{\s*\"(?:arguments|parameters|args|action_input)\"\s*:\s*[{\"][^\n]{0,300}?\"(?:name|tool|function)\"\s*:\s*\"",
        ('"arguments"', '"parameters"', '"args"', '"action_input"'),
    ),
    phrase(r"\"(?:tool_calls|function_call)\"\s*:\s*[\[{]", ('"tool_calls"', '"function_call"')),
)


def tool_call_syntax(view: TextViews) -> Iterator[str]:
    yield from phrase_hits(_TOOL_CALL_SYNTAX, view.light, allow_mentions=False)


def exfiltration(view: TextViews) -> Iterator[str]:
    yield from phrase_hits(_EXFILTRATION, view.light, allow_mentions=False)
