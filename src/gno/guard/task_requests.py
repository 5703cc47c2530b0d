"""Bare task requests: a record that is nothing but a request for its reader to produce something.

Why: BIPIA's "task-irrelevant" injections ("Summarize the main findings of ...", "Write a short story
about ...") say nothing about the output, so the output-manipulation rules cannot see them; they hijack the
reader simply by being a request. As a *memory* such a record states no fact about the user or the world:
stored, it would be replayed into every later context as a fresh request to the model. So a field that is
one imperative sentence asking its reader to explain, describe, summarise, recommend, ... something, or to
write a story, poem, speech, ..., is rejected.

Deliberately let through, because they are what memories legitimately hold:

* questions. A bare question ("What did Caroline research?", "How old is Luna?") is indistinguishable from
  an open-question note or a QA item; question-form injections are therefore not caught here.
* anything with more than one sentence, a speaker or a label ("Caroline: ...", "TODO: ..."): reported
  speech, to-dos and notes are content.
* requests about something already in the conversation ("Tell me more about it", "Show me a pic!",
  "Describe your painting"): a deictic pronoun or the second person marks talk between people.
* standing preferences and the author's own work ("Recommend vegetarian recipes when I ask for dinner
  ideas", "Always explain ...", "Summarize our retro in the wiki"): a user's rule for future answers is
  exactly what memory is for.
* headings, code and markup ("## Compare X and Y", "describe('suite', ...)", "EXPLAIN ANALYZE SELECT").
* lead-ins ending in a colon ("Break down what the client does in each call:"): the content follows.
* build steps and to-dos ("Create a directory in HDFS", "Write a script to rotate logs"): authoring verbs
  count only with a creative-work object (a story, poem, speech, letter, ...).
"""

from __future__ import annotations

import re

_MAX_CHARS = 200
_MIN_WORDS = 4
_EDGE = " \t\"'`*>-"

_LEADIN = (
    r"(?:(?:please|kindly|now|also|can\s+you|could\s+you|would\s+you|will\s+you|i\s+want\s+you\s+to"
    r"|i\s+need\s+you\s+to)\s*,?\s+)*"
)
# Verbs that ask the reader for knowledge or advice, whatever the object.
_ASK_VERB = (
    r"(?:explain(?!\s+(?:analy[sz]e|select|verbose|query)\b)|describe|summari[sz]e|recommend|suggest|analy[sz]e"
    r"|outline|compare|elaborate\s+on|illustrate|break\s+down|provide|(?:show|help|give|tell|teach|walk)\s+me)"
)
# Verbs that ask the reader to author something: only with a creative-work object (not "a script").
_AUTHOR_VERB = r"(?:write|compose|draft|develop|create|generate|produce|craft|pen)"
_WORK = (
    r"(?:stor(?:y|ies)|poems?|essays?|speech(?:es)?|songs?|lyrics|haikus?|limericks?|sonnets?|jokes?"
    r"|introductions?|articles?|blog\s+posts?|letters?|paragraphs?|slogans?|taglines?|headlines?|tweets?)"
)
# Letter-level rewriting of the reply with no "your answer" attached ("Replace every vowel with ...").
_CIPHER = (
    r"(?:replace|substitute|swap|convert|encode)\s+(?:all\s+|every\s+(?:\w+\s+)?|each\s+|the\s+)?"
    r"(?:letters?|vowels?|consonants?|characters?)\s+(?:with|by|for|into|to|in)\b"
)
_REQUEST_RE = re.compile(
    rf"^{_LEADIN}(?:(?P<ask>{_ASK_VERB})\s|{_AUTHOR_VERB}\s+(?:a|an|the|some|\d+)\s+(?:[\w'-]+\s+){{0,2}}?{_WORK}\b"
    rf"|(?P<cipher>{_CIPHER}))"
)
_SECOND_PERSON_RE = re.compile(r"\b(?:you|your|yours|yourself|yourselves|u|ur)\b")
_DEIXIS_RE = re.compile(
    r"\b(?:it|its|them|this|these|those|him|her|he|she|they|their|more|one|ones|stuff|pics?|pictures?|photos?)\b"
    r"|\b(?:of|about|for|with|on|in|to|at)\s+that\b|\bthat\s*[?!.]*$|\ba\s+hand\b"
)
_STANDING_RE = re.compile(
    r"\b(?:i|i'm|i'd|i'll|i've|we|we're|we'll|our|ours|us|always|never|whenever|usually|by\s+default"
    r"|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|(?:each|every|next)\s+time|prefer\w*)\b"
)
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
# A team's working rule is an imperative too ("Summarize standups every Friday", "Provide the staging
# URL to contractors only after the NDA", "Recommend the dark theme to users who ask"): a schedule, a
# condition, an audience or a deadline marks a convention to remember, not a one-off request. Not for
# "show / help / tell me ..." requests, which ask the reader for something whatever follows.
_RULE_RE = re.compile(
    rf"\b(?:daily|weekly|biweekly|monthly|quarterly|yearly|annually|nightly|hourly"
    rf"|every\s+(?:day|week|month|quarter|year|morning|evening|night|sprint|release|{_DAY})|on\s+{_DAY}s"
    rf"|only|unless|if|when|after|before|until|during|who|whoever|anyone"
    rf"|by\s+(?:\d|tomorrow|tonight|eod|eow|the\s+end|end\s+of|next|{_DAY}|{_MONTH}))\b"
)
# Quoted material is the request's subject ("Translate 'how are you'"), not its addressee.
_QUOTED_RE = re.compile(r"(?<!\w)'[^'\n]*'(?!\w)|\"[^\"\n]*\"")
_SENTENCE_BREAK_RE = re.compile(r"[.!?;]+\s+\S")
# Markup and code ("describe('suite', ...)", "## Compare X and Y", "<term>") are documents, not chat.
_MARKUP_RE = re.compile(r"^#|[{}\[\]<>=|`]")


def bare_task_request(light: str) -> str | None:
    """The request, if the normalised text ``light`` is a single bare request to its reader."""
    text = light.strip(_EDGE)
    if text.endswith(":") or "\n" in text or len(text) > _MAX_CHARS or len(text.split()) < _MIN_WORDS:
        return None
    unquoted = _QUOTED_RE.sub(" ", text)
    if _SENTENCE_BREAK_RE.search(unquoted) or _MARKUP_RE.search(unquoted):
        return None
    match = _REQUEST_RE.match(unquoted)
    if match is None:
        return None
    rest = unquoted[match.end() :]
    if _SECOND_PERSON_RE.search(rest) or _STANDING_RE.search(rest):
        return None
    if not (match.group("ask") or "").endswith(" me") and _RULE_RE.search(rest):
        return None
    if match.group("ask") and _DEIXIS_RE.search(rest):
        return None
    return text
