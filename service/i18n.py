"""The player's language: one message catalogue per language, shared by the page, the API and
the command line.

The catalogues are JSON files in ``static/i18n/`` (``en.json``, ``cs.json``, ``ru.json``,
``it.json``): the page loads them as they are, and the service uses their ``api.*`` entries.
An entry is a string with ``{named}`` parameters, or an object of plural forms (CLDR categories
``one``/``few``/``many``/``other``) chosen by the parameter ``n``. Here: the catalogues, the
plural and number forms of each language, and which language a request asks for. The reader's
English messages are translated by ``translation.py``; the API's answers, by ``localize.py``.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from ecoscore.scoring.cards import FOREIGN_CARD  # how a reader's doubts name a card of no type

CATALOGUES = Path(__file__).resolve().parent / "static" / "i18n"
LANGS = ("en", "cs", "ru", "it")
DEFAULT = "en"
# The languages that write a decimal comma ("0,29"); English keeps the point.
_DECIMAL_COMMA = {"cs", "ru", "it"}
# The languages that put a (no-break) space before "%" ("87 %", as the page's Intl writes it:
# a doubt's "87%" beside the upload's "42 %", a walk, in Czech).
_PERCENT_SPACE = {"cs", "ru"}


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict:
    return json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))


def plural_category(lang: str, n: int) -> str:
    """CLDR plural category of the integer ``n`` (what Intl.PluralRules gives the page)."""
    n = abs(int(n))
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    if lang == "cs":
        return "one" if n == 1 else "few" if 2 <= n <= 4 else "other"
    return "one" if n == 1 else "other"


ACCEPT_LANGUAGE_CHARS, ACCEPT_LANGUAGE_TAGS = 1000, 32  # what of an Accept-Language header is read
_QVALUE = re.compile(r"0(\.\d{0,3})?|1(\.0{0,3})?")


def _primary(tag: str) -> str:
    """A language tag's primary language: "it" of "it-IT", and of a POSIX locale's "it_IT"."""
    return re.split(r"[-_]", tag.strip().lower())[0]


def negotiate(accept_language: str | None) -> str:
    """The best of LANGS for an Accept-Language header (q-values honoured), else English."""
    best, best_q = DEFAULT, -1.0
    # A browser sends a few tags; a header of 9,000 held the event loop 20 ms a request (an attack).
    for part in (accept_language or "")[:ACCEPT_LANGUAGE_CHARS].split(",")[:ACCEPT_LANGUAGE_TAGS]:
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":  # RFC 9110's qvalue; any other ("abc", "1e999") ignores the tag
                q = float(value.strip()) if _QVALUE.fullmatch(value.strip()) else 0.0
        lang = _primary(tag)
        if lang in LANGS and q > 0 and q > best_q:  # the first of equal q wins
            best, best_q = lang, q
    return best


def request_lang(query_lang: str | None, accept_language: str | None) -> str:
    """``?lang=`` where it names one of LANGS, read as a language tag ("it-IT" and "it_IT" as
    "it", as Accept-Language's are: it was English, an attack), else Accept-Language's best."""
    lang = _primary(query_lang or "")
    return lang if lang in LANGS else negotiate(accept_language)


def fill(lang: str, key: str, **params) -> str:
    """The catalogue entry ``key`` of ``lang`` with its parameters (English if it lacks one)."""
    entry = catalogue(lang).get(key, catalogue("en")[key])
    if isinstance(entry, dict):
        n = params.get("n", 0)
        entry = entry.get(plural_category(lang, int(n)), entry.get("other") or next(iter(entry.values())))
    return entry.format(**params)


def decimal(lang: str, number: str) -> str:
    """A number written "0.29" as ``lang`` writes it ("0,29" in Czech, Russian and Italian)."""
    return number.replace(".", ",") if lang in _DECIMAL_COMMA else number


def percent_sign(lang: str) -> str:
    """"%" as ``lang`` writes it after a number: "87 %" in Czech and Russian, "87%" else."""
    return "\u00a0%" if lang in _PERCENT_SPACE else "%"


def card_name(lang: str, card: str) -> str:
    key = "not_ours" if card == FOREIGN_CARD else card.replace(" ", "_")
    return catalogue(lang).get(f"card.{key}", card)
