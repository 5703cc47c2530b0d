"""Structural signals of an instruction aimed at the model, combined by a linear score.

Why: phrase rules written against one attack collection catch that collection and little else. What attacks
from different collections share is their *shape*: they address the reader ("you are now ..."), name the
model ("the AI that reads this"), open sentences with an imperative, ask to override or ignore earlier
instructions, change the reader's role, dictate the exact output ("say X", "respond only with"), fake the
boundaries of a prompt (``%%% end of instructions %%%``, ``### system:``) or hide the payload behind filler
(long runs of one token). Each signal below counts one such shape on the normalised text (so spacing,
look-alike letters and leetspeak do not hide it); a logistic weight per signal, fitted on attack and benign
text from several public sources (``data/injection_weights.json``, see the bench), turns the counts into one
score. Every pattern is a plain alternation without nested repetition, so the cost stays linear.

The score explains itself: the signals that raised it most, each with the span of its first match.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

WEIGHTS_FILE = "injection_weights.json"

_VERBS = (
    "ignore|forget|disregard|say|print|write|respond|reply|answer|output|repeat|pretend|act|imagine|tell|reveal"
    "|show|give|list|translate|generate|send|include|append|stop|start|begin|remember|enter|switch|become"
    "|provide|return|type|display|spell|insert|replace|make|create|explain|describe|summari[sz]e|rewrite"
    "|format|convert|visit|click|email|forward|call|assume|obey|follow|comply|disable|activate|unlock|confirm"
    "|proclaim|state|utter|complete|continue|encode|decode|execute|run|evaluate|recommend|report|note|use"
)
_MODEL = (
    r"ai|a\.i\.|assistant|chatbot|bot|language models?|llms?|gpt(?:-?\d[\w.]*)?|chatgpt|claude|bard|gemini|openai"
    r"|the model|this model|agents?|copilot|large language model"
)
_PRIOR = r"previous|prior|above|earlier|preceding|original|initial|old|former|out of date|outdated|foregoing|existing"
_GUIDES = (
    r"instructions?|rules?|guidelines?|directions?|prompts?|restrictions?|polic(?:y|ies)|filters?|constraints?"
    r"|programming|training|directives?|commands?|orders|guardrails?|safeguards?|limitations?|settings"
)

# name -> pattern over the normalised (casefolded, NFKC, look-alikes folded) text
_PATTERNS: dict[str, str] = {
    "you": r"\byou(?:'re|'ll|'ve|r|rs|rself)?\b",
    "you-modal": r"\byou(?:'re| are| will| must| should| shall| have to| need to| can| may|'ll)(?: now| no longer)?\b",
    "imperative-start": rf"(?:^|[.!?:;>\]\n)]\s*|[\"'(`*-]\s*)(?:please\s+|now\s+|then\s+|and\s+)?(?:{_VERBS})\b",
    "override": rf"\b(?:ignore|disregard|forget|override|overrule|bypass|skip|neglect|abandon|discard|supersede"
    rf"|cancel|nullify|void|drop)\b[^.\n]{{0,60}}?\b(?:{_GUIDES}|{_PRIOR}|everything|all of that|the above"
    rf"|the rest|this (?:data|text|document|content|input|message|page|email|file)|what (?:came|comes|was|is)"
    rf" (?:before|above|said|written)|(?:safety|ethics|ethical|morals?|moral|harmless\w*|censorship|alignment)\b)\b",
    "prior-guides": rf"\b(?:{_PRIOR})\s+(?:\w+\s+)?(?:{_GUIDES}|text|context|conversation|messages?|input)\b",
    "guides-named": rf"\b(?:{_GUIDES})\b",
    "role-change": r"\b(?:act(?:ing)? as (?:an?|the|my|if)|pretend(?:ing)? (?:to be|you|that)|role[- ]?play(?:ing)?"
    r"|you(?:'re| are) now(?! (?:ready|able|set|done|logged|connected|in the|on the|at|seeing|going))|from now on"
    r"|henceforth|persona|in character|stay in character|developer mode|jailbr(?:oken|eak)|dan|unfiltered"
    r"|uncensored|no (?:restrictions|limits|filters|boundaries|ethics|morals)|without (?:any )?(?:restrictions"
    r"|limits|filters|censorship)|immerse yourself|alter ego|opposite mode|broken free|do anything now)\b",
    "say-payload": r"\b(?:say|print|output|type|write|repeat|return|answer|respond|reply|state|display|echo"
    r"|begin|start|end|conclude)(?: (?:only|exactly|just|back|out|with|the (?:words?|phrase|text|string|sentence)"
    r"|your (?:reply|response|answer|output)|the (?:reply|response|answer|output)))*\s*[:=-]?\s*[\"'`«\[]",
    "only-output": r"\b(?:respond|reply|answer|output|say|print)\w*\s+(?:only|just|exactly|solely)\b|\b(?:nothing"
    r" (?:else|more|but)|and nothing else|verbatim|word for word|without (?:any )?(?:explanation|punctuation"
    r"|commentary|other text|additional))\b",
    "granted": r"\baccess granted\b|\bi have been pwned\b|\bpwned\b|\bhacked\b",
    "delimiter-line": r"(?m)^[^\S\n]*([=\-#*%~_<>|+^])\1{2,}[^\S\n]*$|([=#*%~<>|^])\2{2,}[^\n]{1,80}?\2{3}",
    "symbol-run": r"([%=#*~<>|\]\[^$@&}{])\1{2,}",
    "role-label": r"(?m)(?:^|[\[<|]\s*)(?:system|assistant|user|human|ai|admin|developer|sys|bot|model)"
    r"\s*(?:\]|\|?>|:)",
    "boundary": r"\b(?:end|beginning|start|begin|stop|close)\s+(?:of\s+)?(?:the\s+)?(?:instructions?|prompt|input"
    r"|context|document|conversation|system prompt|user input|rules|data|email|text|transmission|simulation"
    r"|session)\b|\b(?:new|updated|real|true|actual|additional|secret|hidden|important)\s+(?:instructions?|rules?"
    r"|task|prompt|directive|system prompt)\b",
    "reader-addressed": rf"\b(?:dear|hey|hi|hello|attention|note (?:to|for)|message (?:to|for))\s+(?:the\s+)?"
    rf"(?:{_MODEL})\b|\b(?:{_MODEL})\s+(?:that|who|which)\s+(?:is\s+)?(?:reads?|reading|process(?:es|ing)?"
    rf"|summari[sz](?:es|ing)|sees?|parses?|parsing|analy[sz](?:es|ing))\b|\bif you are an? (?:{_MODEL})\b",
    "secret-ask": r"\b(?:(?:system|initial|original|hidden|secret|internal|developer|pre)[ -]?(?:prompt|instructions?"
    r"|message|configuration|string|text)|your (?:instructions|rules|password|secret|guidelines|programming"
    r"|directives|configuration)|the (?:password|access code|passcode|secret (?:key|word|code|phrase))"
    r"|you (?:were|have been|are) (?:given|instructed|programmed)|(?:instructed|programmed) to"
    r"|system (?:instructions?|configuration|message|settings)|initiali[sz]ation (?:string|text|prompt)"
    r"|(?:text|words|instructions|message|prompt) (?:you were given|above this|before this|given to you))\b",
    "exec-request": r"\b(?:execute|run|eval(?:uate)?|decode and|interpret)\b[^.\n]{0,40}?\b(?:code|commands?|script"
    r"|payload|shell|os|this|it|following)\b",
    "automated-reader": r"\b(?:automated|automatic|ai|llm|machine)[ -](?:analysis|screening|systems?|software"
    r"|reader|scan|review(?:er)?|agents?|assistants?)\b|\b(?:invisible|hidden) to (?:humans|people|the user)\b",
    "urgency": r"\b(?:important|urgent|attention|critical|immediately|mandatory|must|required|crucial|warning)\b",
    "first-person": r"\b(?:i|i'm|i've|i'd|me|my|we|our|us)\b",
    "repeat-unit": r"(\w.{1,23}?)\1{7,}",  # a unit of text, not a rule of dashes
    "question": r"\?",
    "base64-blob": r"[a-z0-9+/]{40,}={0,2}",
}
_COMPILED = {name: re.compile(pattern) for name, pattern in _PATTERNS.items()}
_WORD_RE = re.compile(r"\S+")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
# Signals that are also counted on a leetspeak-undone copy (the larger count wins).
_DELEET = ("override", "role-change", "prior-guides", "secret-ask")


@dataclass(frozen=True)
class Signals:
    """Feature values (in ``FEATURES`` order) and the first span each pattern matched (normalised text)."""

    values: tuple[float, ...]
    spans: dict[str, tuple[int, int]]


def _longest_repeat(text: str) -> int:
    """Longest run of one whitespace-separated token repeated back to back (filler such as ``ö ö ö ...``)."""
    best = run = 0
    previous = None
    for match in _WORD_RE.finditer(text):
        token = match.group()
        run = run + 1 if token == previous else 1
        previous = token
        best = max(best, run)
    return best


def _count(name: str, text: str, spans: dict[str, tuple[int, int]]) -> int:
    n = 0
    for match in _COMPILED[name].finditer(text):
        if n == 0:
            spans[name] = match.span()
        n += 1
    return n


def _log(n: float) -> float:
    return math.log1p(max(n, 0.0))


_SENTENCE_RE = re.compile(r"[^.!?\n]{1,400}")
_IMPERATIVE_HEAD_RE = re.compile(rf"^[\s\"'(`*#>\-\[\]]*(?:please\s+|now\s+|then\s+|and\s+|also\s+)?(?:{_VERBS})\b")
_ABOUT_GUIDES_RE = re.compile(rf"\b(?:{_GUIDES}|{_PRIOR}|password|access code|secret|prompt)\b")
_ABOUT_READER_RE = re.compile(rf"\byou(?:r|rself)?\b|\b(?:{_MODEL})\b")
_QUOTED_RE = re.compile(r"[\"'`«“][^\"'`»”\n]{1,80}[\"'`»”]")


def _sentence_counts(text: str) -> tuple[int, int, int, int]:
    """Per sentence: (imperative about instructions/secrets, imperative with a quoted payload, imperative
    addressed to the reader, imperative sentences)."""
    about = payload = reader = imperative = 0
    for match in _SENTENCE_RE.finditer(text):
        sentence = match.group()
        if not _IMPERATIVE_HEAD_RE.match(sentence):
            continue
        imperative += 1
        about += bool(_ABOUT_GUIDES_RE.search(sentence))
        payload += bool(_QUOTED_RE.search(sentence))
        reader += bool(_ABOUT_READER_RE.search(sentence))
    return about, payload, reader, imperative


_Computed = Callable[[str, int, dict[str, int]], float]
_DERIVED: dict[str, _Computed] = {
    "you-density": lambda _t, words, c: min(c["you"] / max(words, 1) * 20, 3.0),
    "first-person-density": lambda _t, words, c: min(c["first-person"] / max(words, 1) * 20, 3.0),
    "filler-run": lambda t, _w, _c: _log(_longest_repeat(t) - 1),
    "punctuation-density": lambda t, _w, _c: min(
        sum(1 for ch in t if not ch.isalnum() and not ch.isspace()) / max(len(t), 1) * 5, 3.0
    ),
    "non-ascii": lambda t, _w, _c: min(sum(1 for ch in t if ord(ch) > 127) / max(len(t), 1) * 10, 3.0),
    "length": lambda _t, words, _c: _log(words) / 4,
}
_SENTENCE_FEATURES = ("imperative-about-guides", "imperative-quoted-payload", "imperative-to-reader", "imperatives")
FEATURES: tuple[str, ...] = (*_PATTERNS, *_DERIVED, *_SENTENCE_FEATURES)


def signals(normalised: str) -> Signals:
    """Count every signal in ``normalised`` (the output of ``text_views.normalize``)."""
    spans: dict[str, tuple[int, int]] = {}
    deleeted = normalised.translate(_LEET)
    counts: dict[str, int] = {}
    for name in _PATTERNS:
        counts[name] = _count(name, normalised, spans)
        if name in _DELEET and deleeted != normalised:
            extra: dict[str, tuple[int, int]] = {}
            more = _count(name, deleeted, extra)
            if more > counts[name]:
                counts[name] = more
                spans[name] = extra[name]
    words = len(normalised.split())
    values = [_log(counts[name]) for name in _PATTERNS]
    values.extend(fn(normalised, words, counts) for fn in _DERIVED.values())
    about, payload, reader, imperative = _sentence_counts(normalised)
    values.extend((_log(about), _log(payload), _log(reader), _log(imperative)))
    return Signals(tuple(values), spans)


# A long text is also scored window by window (the highest score counts): an instruction buried in a long
# document would otherwise be diluted by the document around it. Each character lands in at most two windows.
WINDOW = 1000
STRIDE = 500


def views(normalised: str) -> list[str]:
    """The whole text, plus overlapping windows when it is long."""
    if len(normalised) <= WINDOW + STRIDE:
        return [normalised]
    return [normalised, *(normalised[i : i + WINDOW] for i in range(0, len(normalised) - STRIDE, STRIDE))]


@dataclass(frozen=True)
class Model:
    """A logistic model over ``FEATURES``: weights, bias and the decision threshold on its probability."""

    weights: dict[str, float]
    bias: float
    threshold: float

    def score(self, values: tuple[float, ...]) -> float:
        z = self.bias + sum(self.weights.get(name, 0.0) * v for name, v in zip(FEATURES, values, strict=True))
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def top(self, values: tuple[float, ...], n: int = 3) -> list[str]:
        """The signals that raised the score most, strongest first."""
        parts = [(self.weights.get(name, 0.0) * v, name) for name, v in zip(FEATURES, values, strict=True)]
        return [name for weight, name in sorted(parts, reverse=True)[:n] if weight > 0]

    def to_json(self) -> dict[str, object]:
        return {"features": list(FEATURES), "weights": self.weights, "bias": self.bias, "threshold": self.threshold}


def model_from_json(data: dict[str, object]) -> Model:
    weights = data["weights"]
    assert isinstance(weights, dict)
    unknown = set(weights) - set(FEATURES)
    if unknown:
        raise ValueError(f"injection weights name unknown signals: {sorted(unknown)}")
    return Model(
        {str(k): float(v) for k, v in weights.items()}, float(str(data["bias"])), float(str(data["threshold"]))
    )


@cache
def shipped_model() -> Model:
    raw = resources.files("gno.guard").joinpath("data", WEIGHTS_FILE).read_text(encoding="utf-8")
    return model_from_json(json.loads(raw))
