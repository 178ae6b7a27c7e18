"""The language the commands speak to the player: Czech, Russian, Italian or English.

Chosen by ``--lang``, else ``ECOSCORE_LANG``, else the shell's locale as gettext reads it
(``LANGUAGE``'s list, then ``LC_ALL``, ``LC_MESSAGES``, ``LANG``; a "C" or "POSIX" locale is
English), else English. What is said is the service's catalogue (service/i18n.py): the same
words as the page and the API, translated on the way out. What is data stays as written: a
grid file's card names (``ecoscore grid`` reads them back), JSON keys, a batch's CSV columns.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

# service/i18n.py's LANGS (tests/test_cli_language.py holds them together), written here so that
# a command in English does not import the catalogue's matcher (a quarter second at every start).
LANG_CHOICES = ("en", "cs", "ru", "it")


def add_lang_option(parser) -> None:
    parser.add_argument("--lang", choices=LANG_CHOICES, default=None,
                        help="the language of what is printed (default: ECOSCORE_LANG, else the shell's locale, else en)")


def add_first_lang_option(parser) -> None:
    """``--lang`` before a subcommand (``ecoscore --lang cs deck list``). Kept apart from the
    subcommand's own (``lang_first``), and set only when given: a subparser's defaults overwrite
    what its parent parsed, so a default here would be lost or would hide the other."""
    import argparse

    parser.add_argument("--lang", dest="lang_first", choices=LANG_CHOICES, default=argparse.SUPPRESS,
                        help="the language of what is printed (also after the command)")


def chosen_lang(option: str | None, environ: Mapping[str, str] = os.environ) -> str:
    """``option``, else the environment's choice, as one of ``LANG_CHOICES``."""
    if option:
        return option
    own = _lang_of(environ.get("ECOSCORE_LANG", ""))
    if own:
        return own
    locale = next((environ[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(name)), "")
    if locale.split(".")[0] in ("", "C", "POSIX"):
        return "en"  # gettext too ignores LANGUAGE under the C locale
    listed = (lang for tag in environ.get("LANGUAGE", "").split(":") if (lang := _lang_of(tag)))
    return next(listed, None) or _lang_of(locale) or "en"


def unspoken_env_lang(environ: Mapping[str, str] = os.environ) -> str | None:
    """``ECOSCORE_LANG`` when it names a language we do not speak ("de"): said once, not passed
    over in silence (a player who set it read English with no word why)."""
    value = environ.get("ECOSCORE_LANG", "").strip()
    return value if value and not _lang_of(value) else None


def _lang_of(tag: str) -> str:
    """"cs_CZ.UTF-8", "ru-RU", "it" -> its language if we speak it, else ""."""
    lang = tag.strip().replace("-", "_").split("_")[0].split(".")[0].split("@")[0].lower()
    return lang if lang in LANG_CHOICES else ""


@dataclass(frozen=True)
class Words:
    """What the commands print, in one language."""

    lang: str = "en"

    def say(self, text: str) -> str:
        """An English message of the reader, the scorer or a command, in this language (as it is
        where no template of the catalogue fits it)."""
        if self.lang == "en":
            return text  # (and the catalogue's import, a quarter second, is not paid)
        from ecoscore.service.translation import translate

        return translate(text, self.lang)

    def label(self, word: str) -> str:
        """A row of the score pad: a card type's name, "biodiversity" or "total"; or "warning"."""
        if self.lang == "en":
            return word
        from ecoscore.service.i18n import card_name, fill

        key = {"biodiversity": "ui.biodiversity", "total": "ui.total_row", "warning": "cli.warning"}.get(word)
        # A soft hyphen lets the page break "biodiversità" on a phone; a terminal prints it.
        return (fill(self.lang, key) if key else card_name(self.lang, word)).replace("\u00ad", "")

    def percent(self, share: float) -> str:
        """0.87 -> "87%" ("87 %" in Czech and Russian, as the page writes it)."""
        if self.lang == "en":
            return f"{share:.0%}"
        from ecoscore.service.i18n import percent_sign

        return f"{round(share * 100)}{percent_sign(self.lang)}"

    def decimal(self, text: str) -> str:
        """"1.6" -> "1,6" in the languages that write a decimal comma."""
        if self.lang == "en":
            return text
        from ecoscore.service.i18n import decimal

        return decimal(self.lang, text)

    def fill(self, key: str, **params) -> str:
        """A command's own line (a ``cli.*`` entry of the catalogue)."""
        from ecoscore.service.i18n import fill

        return fill(self.lang, key, **params)

    def doc(self, doc: object) -> object:
        """A JSON answer with its messages in this language, as the API's (keys stay)."""
        if self.lang == "en":
            return doc
        from ecoscore.service.translation import translate_doc

        return translate_doc(doc, self.lang)


def words_for(args) -> Words:
    return Words(chosen_lang(getattr(args, "lang", None) or getattr(args, "lang_first", None)))
