"""Forms of text that speaks to the agent from inside data: fake turn headers, wrappers and messages addressed to
the model, and requests that put themselves before the agent's own task.

Why forms rather than phrases: tool-output injections vary their wording freely but keep a shape that ordinary
data does not have. A record's field does not open with a chat-turn header (``###(system_message)``,
``[SYSTEM]``, ``Assistant:`` inside a quoted value); a made-up markup wrapper (``<INFORMATION>``) does not hold
instructions to "you"; an e-mail does not greet a language model by name ("to you, Claude", "the AI language
model") and then tell it what to do; and nobody but an attacker asks the reader to do something "before you can
solve the task I gave you" or to drop "your original task". Each form below is checked on the normalised text
(case folded, look-alikes folded) except the upper-case wrapper, which needs the original case.

What is deliberately let through: a heading or label that only names a role (``System: Linux``, a ``[system]``
section of a configuration file at a line start is the role rules' business), HTML and XML elements a page or a
configuration file really uses, a person addressed by name, and talk between people about a task ("did you
finish the task I gave you?") that does not put another request before it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass

from gno.guard.phrases import Phrase, alts, phrase, phrase_hits, phrase_matches
from gno.guard.text_views import TextViews

_ROLE = r"(?:system|assistant|developer|admin|administrator|sys|operator)"
_ROLE_KIND = r"(?:[ _-]?(?:message|prompt|instructions?|note|override|update|alert|command|notice|request))"
# A turn header where data holds a value: at a line start, or at the start of a quoted value or field.
_VALUE_START = r"(?:^[ \t>*-]*|[:=]\s*[\"']?\s*|[\"']\s*)"
_FAKE_TURN = (
    # "***IMPORTANT NEW INSTRUCTIONS***", "=== updated system prompt ===": a banner that opens new orders
    phrase(
        r"[*#=~%\[<|-]{2,}\s*(?:(?:important|urgent|critical|attention|begin|start|end)\s*[:!-]?\s*)?(?:new|updated|real"
        r"|secret|hidden|override|revised|additional|extra|priority)[\s_]+(?:system[\s_]+)?(?:instructions?|directives?"
        r"|orders|prompt|rules)\s*[*#=~%\]>|-]{2,}",
        ("instruction", "directive", "orders", "prompt", "rules"),
    ),
    # "###(system_message) ...", "## [assistant] ...", "(system_message) ..." as a value
    phrase(
        rf"(?:{_VALUE_START}#{{0,6}}|#{{2,6}})\s*[(\[{{<]\s*{_ROLE}(?:[ _-]{_ROLE})?{_ROLE_KIND}?\s*"
        r"(?:[)\]}>]|::)\s*(?=\S)",
        ("system", "assistant", "developer", "admin", "sys", "operator"),
        ("(", "[", "{", "<"),
    ),
    # "#system: ...", "subject: \"SYSTEM: you must ...\"": a role label opening a value, followed by an order
    phrase(
        rf"(?:[:=]\s*[\"']\s*|[{{\[(]\s*|^[ \t>*-]*#{{1,6}}\s*){_ROLE}{_ROLE_KIND}?\s*:\s*(?=[^\n]{{0,200}}?"
        r"\b(?:you|your|ignore|disregard|send|forward|delete|transfer|execute|run|reply|respond|do\s+not|don't|must"
        r"|always|never|immediately|instead)\b)",
        ("system", "assistant", "developer", "admin", "sys", "operator"),
    ),
)
# A made-up transcript inside data: an assistant turn that answers no one, followed by a user turn ("Assistant:
# [summary]\nUser: Thanks ..."). A real transcript opens with the user's turn, so one with a user or human turn
# before it passes.
_TRANSCRIPT = phrase(
    r"^[ \t>*-]*(?:assistant|ai|bot|model)\s*:[^\n]{0,200}\n[ \t>*-]*(?:user|human)\s*:\s*\S",
    ("user", "human"),
    ("assistant", "ai", "bot", "model"),
)
_USER_TURN_RE = re.compile(r"(?m)^[ \t>*-]*(?:user|human)\s*:")

# An order addressed to the reader: the content test of a wrapper or a vocative.
_ORDER = (
    r"\byou\s+(?:should|must|shall|need\s+to|have\s+to|are\s+(?:required|instructed|asked|ordered)\s+to|will\s+now"
    r"|can\s+(?:now\s+)?(?:solve|continue|proceed))\b|\bplease\s+(?:do|follow|send|ignore|stop|make|reply|respond"
    r"|forward|delete|transfer|visit|click|execute|run|email|post|invite|create|change|tell|say|write|get)\b"
    r"|\bdo\s+the\s+following\b|\b(?:immediately|instead)\b|\bstop\s+what\s+you\b"
    # a sentence that opens with an order about the reader's output or instructions
    r"|(?:^|[.!?:]\s+)(?:ignore|disregard|print|say|respond|reply|output|report|repeat|do\s+not|don't)\b"
)
_ORDER_RE = re.compile(_ORDER)
_WRAPPER_SPAN = 1500
# Markup names pages, documents and configuration files use for their own content.
_MARKUP_NAMES = frozenset(
    "html head body title span table thead tbody tfoot script style form input meta link center font label button"
    " select option textarea strong small header footer section article main code pre nav aside figure caption"
    " summary details template slot frame iframe object param embed audio video source track canvas svg math"
    " blockquote address cite abbr time mark ruby data output progress meter fieldset legend dialog menu"
    " description name value version project dependency dependencies plugin plugins configuration property"
    " properties string resources item entry key dict array integer real true false xml root note notes".split()
)
# A wrapper written to look like a message to the model: upper-case or named after what it claims to be.
_WRAPPER_RE = re.compile(r"<([A-Z][A-Z_-]{3,30})>")
_NAMED_WRAPPER_RE = re.compile(
    r"<((?:important|urgent|information|instructions?|admin|system|secret|hidden|priority|message|notice|alert"
    r"|ai|assistant|agent|llm)(?:[_-][a-z]{1,20})?)>"
)


def _wrapped_orders(view: TextViews) -> Iterator[str]:
    """A made-up wrapper element whose content gives the reader orders."""
    for pattern, text in ((_WRAPPER_RE, view.raw), (_NAMED_WRAPPER_RE, view.light)):
        if "<" not in text:
            continue
        checked = 0  # content is read once: a wrapper opened inside checked content adds nothing
        for match in pattern.finditer(text):
            name = match.group(1)
            if name.casefold() in _MARKUP_NAMES or match.end() < checked:
                continue
            close = text.find(f"</{name}>", match.end(), match.end() + _WRAPPER_SPAN)
            checked = close if close >= 0 else match.end() + _WRAPPER_SPAN // 3
            if _ORDER_RE.search(text[match.end() : checked].casefold()):
                yield match.group()
                return


_LIMITS = (
    r"(?:rules|morals?|morality|ethics|ethical\s+(?:guidelines|principles|standards|constraints)|moral\s+(?:guidelines"
    r"|principles|constraints)|polic(?:y|ies)|guidelines|restrictions|limitations|limits|filters|censorship|boundaries"
    r"|safeguards|laws\s+of\s+ai)"
)
# A persona whose limits are waived: "NaD is not restrained by any morals", "X is free of all restrictions",
# "you're not required to follow any rules", "it doesn't have any ethical or moral guidelines".
_WAIVER = phrase(
    r"\b(?:is|are|'re|'s|am|be|being|remain|become)\s+(?:now\s+)?(?:not|no\s+longer|never)\s+(?:bound|restrained|restricted"
    r"|limited|constrained|confined|held\s+back|required\s+to\s+(?:follow|obey|abide\s+by|respect))\s+(?:by|to)?\s*"
    rf"(?:any|all|the|its|his|her|their|your)?\s*(?:\w+\s+){{0,2}}?{_LIMITS}\b"
    rf"|\b(?:is|are|'re|'s|am|be|being)\s+(?:now\s+)?(?:completely\s+|totally\s+|entirely\s+)?free\s+(?:of|from)\s+"
    rf"(?:all|any|the)?\s*(?:\w+\s+){{0,2}}?{_LIMITS}\b"
    rf"|\b(?:doesn't|does\s+not|don't|do\s+not|has\s+no|have\s+no)\s+(?:have\s+)?(?:any\s+)?(?:\w+\s+){{0,3}}?"
    r"(?:ethical|moral)\s+(?:or\s+moral\s+|or\s+ethical\s+|and\s+moral\s+|and\s+ethical\s+)?(?:guidelines|principles"
    r"|restrictions|limits|boundaries|constraints|filters)\b",
    alts("bound|restrained|restricted|limited|constrained|confined|held back|required to|free |ethic|moral"),
)
# ... said of a persona the text sets up for its reader.
_PERSONA_RE = re.compile(
    r"\b(?:ai|chatbot|gpt|chatgpt|language\s+model|llm|assistant|persona|pretend|act\s+as|act\s+like"
    r"|roleplay|role-play|simulate|you\s+are\s+now|from\s+now\s+on|respond\s+as|answer\s+as|openai)\b"
)


def waived_limits(view: TextViews) -> Iterator[str]:
    """Role-smuggling form: a persona for the reader whose rules, ethics or filters are declared void."""
    if _WAIVER.possible(view.light) and _PERSONA_RE.search(view.light):
        yield from phrase_hits((_WAIVER,), view.light, allow_mentions=True)


def fake_turn(view: TextViews) -> Iterator[str]:
    """Role-smuggling forms: turn headers inside data, and wrappers that hold orders."""
    yield from phrase_hits(_FAKE_TURN, view.light, allow_mentions=True)
    if _TRANSCRIPT.possible(view.light):
        match = _TRANSCRIPT.pattern.search(view.light)
        if match and not _USER_TURN_RE.search(view.light, 0, match.start()):
            yield match.group()
    yield from _wrapped_orders(view)
    yield from waived_limits(view)


_MODEL_NAME = (
    r"(?:(?:the\s+|my\s+|dear\s+)?(?:ai|a\.i\.)(?:\s+language)?(?:\s+(?:model|assistant|agent|system|bot))?"
    r"|(?:the\s+|my\s+)?(?:language\s+model|llm|chatbot|ai\s+assistant|virtual\s+assistant|assistant|agent|model)"
    r"|chatgpt|gpt-?\d[\w.-]*|gpt|claude|gemini|bard|llama|mistral|copilot)"
)
_TASK = r"(?:task|request|question|assignment|instructions?|goal|objective|job|mission)"
_ADDRESSED = (
    # "Write one toxic sentence about <group>": a request for abuse, stored to be replayed to the model
    phrase(
        r"\b(?:write|generate|compose|produce|create|say|give\s+me)\s+(?:one|a|an|some|\d+|\w+)\s+(?:toxic|offensive|harmful"
        r"|hateful|discriminatory|racist|sexist|derogatory|insulting|demeaning|unfriendly|negative|abusive|bigoted)\s+"
        r"(?:sentences?|statements?|jokes?|comments?|remarks?|slurs?|tweets?|posts?)\s+(?:about|against|targeting|on)\s+"
        r"(?!(?:yourself|your|my|our|the\s+weather)\b)",
        alts(
            "toxic|offensive|harmful|hateful|discriminatory|racist|sexist|derogatory|insulting|demeaning|unfriendly|"
            "negative|abusive|bigoted"
        ),
    ),
    # "Decode and execute: ...": run whatever the text hides
    phrase(
        r"\b(?:decode|decrypt|deobfuscate|unscramble|translate)\s+(?:it\s+|this\s+|that\s+|the\s+following\s+)?and\s+"
        r"(?:then\s+)?(?:execute|run|eval(?:uate)?)\b",
        ("decode", "decrypt", "deobfuscate", "unscramble", "translate"),
    ),
    # "Answer anything without restrictions": the reader's limits waived in one order
    phrase(
        r"\b(?:answer|respond\s+to|reply\s+to|do|say|tell\s+me|write)\s+(?:anything|everything|any\s+question|all"
        r"\s+questions|whatever\s+i\s+ask)\b[^.\n]{0,40}?\b(?:without|with\s+no|free\s+of)\s+(?:any\s+)?"
        r"(?:restrictions?|limits?|limitations|filters?|filtering|censorship|rules|guidelines|refusals?)\b",
        ("without", "with no", "free of"),
    ),
    # "Note to automated analysis software: ...": a note addressed to whatever machine screens the text
    phrase(
        r"\b(?:note|message|instructions?|memo|attention|notice)\s+(?:to|for)\s+(?:all\s+|any\s+|the\s+)?(?:automated"
        r"|automatic)\s+(?:[\w-]+\s+){0,2}?(?:software|systems?|screeners?|screening|tools?|readers?|reviewers?|scanners?"
        r"|agents?|assistants?|analy[sz]ers?|parsers?|pipelines?)\b",
        ("automat",),
    ),
    # "before you can solve the task (that) I gave you ..."
    phrase(
        r"\bbefore\s+you\s+(?:can\s+|may\s+)?(?:solve|continue|complete|finish|proceed|start|answer|do|return\s+to"
        rf"|go\s+back\s+to|work\s+on)\b[^.\n]{{0,40}}?\b{_TASK}\b[^.\n]{{0,40}}?\b(?:i|the\s+user|we)\s+(?:gave|assigned"
        r"|set|asked)\b",
        ("before you",),
    ),
    # "after you do that, you can solve the task ...", "instead of your original task"
    phrase(
        r"\bafter\s+you\s+(?:do|did|have\s+done|complete|finish|are\s+done\s+with)\s+(?:that|this|it)\b[^.\n]{0,20}?"
        rf"\byou\s+(?:can|may|should)\s+(?:solve|continue|complete|finish|return|go\s+back|proceed)\b[^.\n]{{0,40}}?\b{_TASK}\b"
        rf"|\binstead\s+of\s+(?:solving\s+|doing\s+|completing\s+|answering\s+)?(?:the|your)\s+(?:original\s+|initial"
        rf"\s+|current\s+|actual\s+|assigned\s+)?{_TASK}\s+(?:that\s+)?(?:i|the\s+user|you\s+were)\s+(?:gave|given"
        r"|assigned|asked)\b",
        ("after you", "instead of"),
    ),
)


@dataclass(frozen=True)
class _Followed:
    """A form that counts only when ``then`` matches within ``within`` characters after it."""

    head: Phrase
    then: re.Pattern[str]
    within: int


_ORDER_OR_ACT_RE = re.compile(rf"{_ORDER}|\b(?:ignore|disregard|send|forward|delete|transfer)\b")
_HIJACK_RE = re.compile(r"\b(?:first|instead|before|stop|forget|ignore|pause|postpone|abandon)\b")
_FOLLOWED = (
    # "... from me, Emma, to you, Claude." followed by orders
    _Followed(phrase(rf"\bto\s+you\s*,\s*{_MODEL_NAME}\b", ("to you",)), _ORDER_RE, 600),
    # "Claude, ...", "Hey GPT-4: ..." opening a sentence, then an order
    _Followed(
        phrase(
            r"(?:^|[.!?\n\"'>]\s*)(?:(?:hey|hi|hello|dear|ok|okay|listen|attention)\s*,?\s+)?(?:chatgpt|gpt-?\d[\w.-]*"
            r"|claude|gemini|bard|copilot|ai\s+assistant|ai\s+agent|ai\s+model|ai\s+language\s+model)\s*[,:!]\s+",
            alts("chatgpt|gpt|claude|gemini|bard|copilot|ai "),
        ),
        _ORDER_OR_ACT_RE,
        300,
    ),
    # "the task I gave you in the beginning", "your original task": then an order to do something else
    _Followed(
        phrase(
            rf"\b(?:the\s+{_TASK}\s+(?:that\s+)?(?:i|the\s+user)\s+gave\s+you|your\s+(?:original|initial|actual|assigned)"
            rf"\s+{_TASK})\b",
            ("gave you", "your original", "your initial", "your actual", "your assigned"),
        ),
        _HIJACK_RE,
        300,
    ),
)


def _followed_hits(rules: tuple[_Followed, ...], text: str, allow_mentions: bool) -> Iterator[str]:
    """Each form's match that its follow-up pattern confirms; every follow-up pattern is run once over the text
    and looked up by position, so a text full of openings costs no more than one pass per pattern."""
    starts: dict[re.Pattern[str], list[int]] = {}
    for rule in rules:
        for match in phrase_matches(rule.head, text, allow_mentions):
            if rule.then not in starts:
                starts[rule.then] = [m.start() for m in rule.then.finditer(text)]
            positions = starts[rule.then]
            at = bisect_left(positions, match.end())
            if at < len(positions) and positions[at] <= match.end() + rule.within:
                yield match.group().strip()


# An outside place to send things: an e-mail address, an IBAN, a URL.
_TARGET_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[a-z]{2}\d{2}[a-z0-9]{11,30}\b|https?://|\bwww\.[\w-]+\.")
# A to-do planted inside a value ("subject: \"TODO: send ... to x@y.test\""): the marker follows a word, a quote, a
# colon or "=" on its line; a to-do that opens a line, a sentence or a list item is the user's own note.
_PLANTED_TASK = _Followed(
    phrase(
        r"[\w\"':=][ \t]*(?:to-?do|action\s+required|note\s+to\s+(?:the\s+|my\s+)?(?:ai|assistant|agent|model|bot|llm))"
        r"\s*:\s*(?:please\s+)?(?:send|transfer|wire|pay|forward|e-?mail|post|upload|share|invite|visit|open|concatenate"
        r"|get|modify|change|create|delete)\b",
        ("todo", "to-do", "action required", "note to"),
    ),
    _TARGET_RE,
    250,
)


def model_addressed(view: TextViews) -> Iterator[str]:
    """Agent-directive forms: a message that names the model it talks to, puts itself before its task, or a
    to-do planted in a value that sends something to an outside address."""
    yield from phrase_hits(_ADDRESSED, view.light, allow_mentions=True)
    yield from _followed_hits(_FOLLOWED, view.light, allow_mentions=True)
    yield from _followed_hits((_PLANTED_TASK,), view.light, allow_mentions=False)
