"""Agent-directive rules: text addressed to whichever AI later reads it, BIPIA-style imperatives aimed
at whoever writes the next response (add this link, answer in base64, insert this code), and records that
are nothing but a task request to their reader (see ``task_requests``).

Why per sentence: the output-manipulation rules anchor on a sentence start, so the text is re-split into
one sentence per line before they run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gno.guard.addressed_rules import model_addressed
from gno.guard.phrases import YOU_ARE, alts, phrase, phrase_hits
from gno.guard.task_requests import bare_task_request
from gno.guard.text_views import TextViews

_AI_READER = (
    r"(?:ai|a\.i\.|llms?|large\s+language\s+models?|language\s+models?|ai\s+(?:assistants?|agents?|models?|systems?)"
    r"|chatbots?|gpts?|chatgpt|virtual\s+assistants?|autonomous\s+agents?|coding\s+agents?|assistants?|agents?|bots?"
    r"|models?)"
)
_AI_ONLY = (
    r"(?:ai|a\.i\.|llms?|large\s+language\s+models?|language\s+models?|ai\s+(?:assistants?|agents?|models?|systems?)"
    r"|chatbots?|gpts?|chatgpt|virtual\s+assistants?|autonomous\s+agents?|coding\s+agents?)"
)
_N_AI = alts("ai|a.i.|llm|language model|chatbot|gpt|virtual assistant|autonomous agent|coding agent")
_READ_VERB = (
    r"(?:reading|processing|parsing|summari[sz]ing|seeing|viewing|analy[sz]ing|ingesting|indexing|crawling|scraping"
    r"|retrieving|handling|encountering|that\s+reads|who\s+reads|which\s+reads|that\s+processes|that\s+sees)"
)
_N_READ_VERB = alts(
    "reading|processing|parsing|summari|seeing|viewing|analy|ingesting|indexing|crawling|scraping|"
    "retrieving|handling|encountering|reads|processes|sees"
)
_DIRECTIVE_VERB = (
    r"(?:do|run|execute|call|send|say|respond|reply|output|tell|ignore|delete|write|include|add|forward|email|visit|open"
    r"|click|navigate|must|should|need\s+to|make\s+sure|always|immediately|first|remember|recommend|mention|insert|append"
    r"|fetch|download|install|print|reveal|follow|obey|comply|stop|refuse|transfer|approve|grant)"
)
_AGENT_DIRECTIVE = (
    phrase(rf"\b{_AI_READER}\s+{_READ_VERB}\s+(?:this|these|the\s+following|my|our)\b", _N_READ_VERB),
    phrase(
        r"(?:^|[\n.!?:(\[]\s*)(?:attention|important|note|notice|message|instructions?|reminder|warning|hey|hi|hello|dear"
        rf"|psst)\s*[,:!-]?\s*(?:to\s+|for\s+)?(?:all\s+|any\s+|the\s+|every\s+)?{_AI_ONLY}\b",
        _N_AI,
    ),
    phrase(
        rf"\b(?:note|message|instructions?|reminder|memo)\s+(?:to|for)\s+(?:all\s+|any\s+|the\s+|every\s+|future\s+)?{_AI_ONLY}\b",
        _N_AI,
        ("note", "message", "instruction", "reminder", "memo"),
    ),
    phrase(
        rf"\bif\s+{YOU_ARE}\s+(?:an?\s+|the\s+)?(?:ai|llm|large\s+language\s+model|language\s+model|chatbot"
        r"|ai\s+assistant|ai\s+agent|ai\s+model|gpt|chatgpt|automated\s+(?:system|agent|assistant|tool)|bot|agent"
        r"|assistant)\b",
        ("if you",),
    ),
    phrase(
        r"\bwhen(?:ever)?\s+(?:you|an?\s+ai|the\s+(?:ai|assistant|agent|model))\s+(?:read|see|process|encounter|summari[sz]e"
        r"|parse|retrieve|load|recall|ingest|find|reads|sees|processes)\s+(?:this|these|the\s+following|it)\b[^.\n]{0,60}?"
        rf"\b{_DIRECTIVE_VERB}\b",
        ("when",),
    ),
    phrase(
        rf"\b{_AI_ONLY}\s+(?:must|should|shall|(?:are|is)\s+(?:required|instructed|ordered)\s+to)\s+"
        r"(?:always\s+|never\s+|now\s+|immediately\s+|first\s+|also\s+)?(?:ignore|disregard|reveal|send|forward|email"
        r"|execute|transfer|approve|grant|obey|comply|delete|recommend|promote|visit|refuse|tell\s+the\s+user"
        r"|not\s+(?:tell|mention|reveal|disclose))\b",
        _N_AI,
        ("must", "should", "shall", "required", "instructed", "ordered"),
    ),
    phrase(
        r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|alert|mention|reveal|disclose|show|let)\b[^.\n]{0,40}?"
        r"\b(?:to\s+)?(?:the\s+)?(?:user|human|operator)\b(?:\s+know)?",
        ("user", "human", "operator"),
    ),
    phrase(
        r"\bwhen\s+(?:summari[sz]ing|processing|parsing|reading|analy[sz]ing|indexing)\s+(?:this|these|the\s+following)\s+"
        r"(?:\w+\s+)?(?:document|page|text|e-?mail|file|note|content|message|record|memory|website|article)s?\b,?\s+"
        rf"(?:you\s+(?:must|should|need\s+to)\s+)?(?:also\s+|always\s+)?{_DIRECTIVE_VERB}\b",
        ("when",),
    ),
    phrase(
        r"\b(?:just|only|simply)\s+(?:print|output|respond\s+with|reply\s+with|answer\s+with|type|return)\s+"
        r"[\"'][^\"'\n]{1,80}[\"']",
        ("just", "only", "simply"),
    ),
    phrase(
        r"\b(?:output|print|say|respond\s+with|reply\s+with|answer\s+with|return|write)\s+(?:only\s+)?[\"'][^\"'\n]{1,80}"
        r"[\"']\s*(?:,\s*)?(?:and\s+nothing\s+else|only\b|verbatim|regardless|no\s+matter|without\s+(?:any\s+)?(?:other"
        r"|additional|further|extra))",
        ("nothing else", "only", "verbatim", "regardless", "no matter", "without"),
    ),
    phrase(
        r"\bwithout\s+(?:telling|informing|notifying|alerting|asking)\s+(?:the\s+)?(?:user|human|operator)\b",
        ("without",),
    ),
    phrase(
        r"\b(?:keep|hide)\s+this\s+(?:secret\s+|hidden\s+)?from\s+the\s+(?:user|human|operator)\b",
        ("from the",),
    ),
)

# BIPIA-style output manipulation: an imperative aimed at whoever writes the next response.
_OUTPUT_NOUN = (
    r"(?:response|reply|answer|output|message|elucidation|explanation|summary|responses|replies|answers|messages|outputs"
    r"|completion|generation)"
)
_CODE_NOUN = r"(?:code(?:'s)?|codebase|implementation|solution|algorithm|program|script)"
_IMPERATIVE = (
    r"(?:add|include|insert|integrate|incorporate|embed|append|prepend|inject|mention|promote|suggest|recommend|advertise"
    r"|highlight|emphasi[sz]e|stress|tease|hint|allude|modify|alter|change|edit|enhance|augment|update|rewrite|replace"
    r"|substitute|convert|encode|encrypt|translate|render|provide|write|use|apply|shift|reverse|invert|scramble|jumble"
    r"|rearrange|anagram|misspell|remove|group|combine|format|express|start|begin|end|finish|conclude|sign|output|respond"
    r"|reply|answer|make|ensure|introduce|present|display|give|close|say|state|insist|claim|spread|sprinkle|weave|mix"
    r"|blend|always|never|don't|do|remember|be\s+sure|make\s+sure|attach|link|direct|invite|encourage|urge|tell|ask"
    r"|share|offer|cite|reference|praise|endorse|spell|capitali[sz]e|uppercase|lowercase|pad|wrap|prefix|suffix|limit"
    r"|restrict|keep|refuse|decline|deny|omit|exclude|delete|drop|hide|conceal|twist|distort|fabricate|invent|falsify"
    r"|exaggerate)"
)
_TRANSFORM_VERB = (
    r"(?:use|substitute|replace|encode|encrypt|translate|render|write|display|format|convert|reverse|invert|scramble"
    r"|include|add|integrate|mention|insert|append|express|represent|provide|give|present|modify|respond|reply|answer)"
)
_LEADIN = (
    r"(?:(?:please|kindly|also|now|then|and|first|finally|lastly|additionally|moreover|furthermore|next|important|note"
    r"|remember|just|simply|be\s+sure\s+to|make\s+sure\s+to|don't\s+forget\s+to|do\s+not\s+forget\s+to|remember\s+to"
    r"|consider|try\s+to|you\s+should|you\s+must|you\s+need\s+to|can\s+you|could\s+you|would\s+you|will\s+you)"
    r"\s*[,:]?\s+)*"
)
_CODE_BLOCK = (
    r"(?:following|below|subsequent|above|attached|next|accompanying|provided|given)\s+"
    r"(?:python\s+|javascript\s+|bash\s+|shell\s+)?(?:code|snippet|script)"
    r"(?:\s+(?:snippet|block|excerpt|section|segment|fragment|piece|lines?|sample))?"
)
_N_CODE = ("code", "snippet", "script")
_LANGUAGES = (
    r"(?:spanish|french|german|italian|portuguese|russian|chinese|mandarin|japanese|korean|arabic|hindi|dutch|turkish"
    r"|polish|swedish|greek|hebrew|vietnamese|thai|indonesian)"
)
_SENTENCE_RULES = (
    phrase(rf"^{_LEADIN}{_IMPERATIVE}\b[^\n]{{0,200}}?\byour\s+(?:\w+\s+)?{_OUTPUT_NOUN}\b", ("your",)),
    phrase(
        rf"(?:^|,\s*)(?:in|within|throughout|into|for|at\s+the\s+(?:start|end|beginning|top|bottom)\s+of)\s+"
        rf"(?:each\s+of\s+)?your\s+(?:\w+\s+)?{_OUTPUT_NOUN}s?\s*,?\s+(?:{_IMPERATIVE}\b|you\s+(?:must|should|will"
        r"|need\s+to|have\s+to))",
        ("your",),
    ),
    phrase(
        rf"^{_LEADIN}(?:can|could|would|will)\s+you\s+(?:please\s+)?{_TRANSFORM_VERB}\b[^\n]{{0,200}}?\byour\s+(?:\w+\s+)?"
        rf"{_OUTPUT_NOUN}\b",
        ("your",),
        ("you ",),
    ),
    phrase(
        rf"\byour\s+(?:\w+\s+)?{_OUTPUT_NOUN}\s+(?:must|should|shall|needs?\s+to|has\s+to)\s+(?:always\s+|also\s+|only\s+)?"
        r"(?:be\s+(?:written|encoded|encrypted|translated|in\b)|include|contain|mention|start|begin|end|promote|recommend"
        r"|link)",
        ("your",),
    ),
    phrase(
        rf"^{_LEADIN}(?:reply|respond|answer|write(?:\s+your\s+\w+)?|talk|speak|communicate)\s+(?:only\s+)?"
        r"(?:in|using|with)\s+(?:reverse|backwards?|base\s*\d+|rot\s*13|caesar|emojis?|(?:a\s+)?cipher|anagrams?"
        rf"|pig\s+latin|leet|all\s+caps|morse|binary|hex(?:adecimal)?|{_LANGUAGES})\b",
        ("reply", "respond", "answer", "write", "talk", "speak", "communicat"),
    ),
    phrase(
        rf"\b{_CODE_BLOCK}\b[^\n]{{0,200}}?\b(?:your\s+(?:\w+\s+)?{_CODE_NOUN}|your\s+(?:\w+\s+)?{_OUTPUT_NOUN}"
        r"|the\s+code\s+you\s+(?:develop|write|generate|produce|create))\b",
        _N_CODE,
        ("your", "you "),
    ),
    phrase(rf"\byour\s+(?:\w+\s+)?{_CODE_NOUN}\b[^\n]{{0,200}}?\b{_CODE_BLOCK}\b", ("your",), _N_CODE),
    phrase(
        rf"^{_LEADIN}(?:don't|do\s+not)\s+(?:hesitate|forget)\s+to\s+[^\n]{{0,40}}?\b{_CODE_BLOCK}\b",
        ("hesitate", "forget"),
    ),
    # Classic NLP task prompts are addressed to a model, not to a human reader.
    phrase(
        rf"^{_LEADIN}(?:determine|analy[sz]e|classify|identify|detect|rate|label|evaluate|assess)\s+the\s+"
        r"(?:overall\s+)?(?:sentiment|mood|tone|emotion|polarity)\s+of\s+(?:this|the\s+following|the\s+given|these)\b",
        ("sentiment", "mood", "tone", "emotion", "polarity"),
    ),
    phrase(
        r"^is\s+this\s+(?:\w+\s+)?(?:feedback|review|comment|tweet|post|message|sentence|text)\s+positive\s+or\s+negative\b",
        ("positive or negative",),
    ),
    phrase(
        rf"^{_LEADIN}translate\s+(?:the\s+following|this)\s+(?:\w+\s+)?(?:sentence|text|paragraph|passage|phrase|word"
        rf"|message)s?\s+(?:in)?to\s+{_LANGUAGES}\b",
        ("translate",),
    ),
)
_N_SENTENCE_RULES = alts(
    "your|reply|respond|answer|write|talk|speak|communicat|code|snippet|script|"
    "sentiment|mood|tone|emotion|polarity|positive or negative|translate"
)
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_SENTENCE_EDGE = " \t>*-#\"'`"


def agent_directive(view: TextViews) -> Iterator[str]:
    yield from phrase_hits(_AGENT_DIRECTIVE, view.light, allow_mentions=True)
    yield from model_addressed(view)
    request = bare_task_request(view.light)
    if request is not None:
        yield request
    if not any(needle in view.light for needle in _N_SENTENCE_RULES):
        return
    # One sentence per line, so ``^`` means "sentence start" and ``[^\n]`` stays inside a sentence.
    sentences = "\n".join(part.strip(_SENTENCE_EDGE) for part in _SENTENCE_SPLIT_RE.split(view.light))
    for rule in _SENTENCE_RULES:
        if rule.possible(sentences):
            match = rule.pattern.search(sentences)
            if match:
                yield match.group().strip()
                return
