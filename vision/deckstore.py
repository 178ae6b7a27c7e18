"""Enrolled decks, kept in the data directory: a folder per deck of reference crops per type.

    <data>/decks/<name>/deck.toml            name, title (as the player typed it), sources it was enrolled from
    <data>/decks/<name>/<type>/<n>.png       reference crops (the card squashed to a square)
    <data>/decks/<name>/embedded-<model>.npz the references as the matcher model sees them (a cache)
    <data>/decks/<name>/last-add.json        the crops the last add wrote (to forget them)

The stand-in deck is built in (its faces ship with the package) and is the default. A deck
travels as one ``.zip`` of its ``deck.toml`` and crops (``deck_archive``).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import threading
import time
import tomllib
import unicodedata
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
import tomli_w

from ecoscore.lookalike import alike
from ecoscore.scoring import CardType
from ecoscore.text import BLANK, marks_capped
from ecoscore.tokens import holds, token_hash

from .deck_metric import DeckMetric
from .matcher import CardEmbedder, References

DEFAULT_DECK = "standin"
REFERENCE_PX = 128  # stored crops: twice the matcher's input, room for a bigger model later
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
OWNER_HASH = re.compile(r"[0-9a-f]{64}")
MAX_INFOS = 4096  # decks whose info a store keeps at once (the service keeps at most max_decks)
MAX_REFERENCES = 400  # per deck: enough for many photos of every type, bounded for the service
OTHER_VERSION_CACHE_S = 24 * 3600  # another model's cache of a deck is deleted when a day old
LAST_ADD = "last-add.json"  # the files of a deck's last add: ``forget_last`` takes them back
LAST_FILE = re.compile(r"[a-z]+/\d{4}\.png")
MAX_SOURCES, MAX_SOURCE_CHARS = 100, 200  # what deck.toml keeps of where its references came from
MAX_TITLE_CHARS = 40  # a deck's title: the name a player typed ("Náš stůl"), shown where the page names the deck
MAX_CLIENT_KEY = 64  # an address, or an IPv6 /64, as deck.toml keeps who started a deck


class DeckStoreError(ValueError):
    """A deck that cannot be stored, found or imported; the message says why."""


class NoSuchDeck(DeckStoreError):
    """A deck name no deck has (``name``)."""

    def __init__(self, name: str):
        super().__init__(f"no deck {name!r}; enrol one with `ecoscore deck add`")
        self.name = name

    def over_the_service(self) -> str:
        """Said to the service's clients, whose way to a deck is not the command line (an attack:
        "enrol one with `ecoscore deck add`" reached a page's API client)."""
        return f"no deck {self.name!r} on this server: choose one of its decks, or teach it yours from a photo of its cards"


class IncompleteDeck(DeckStoreError):
    """The deck has no reference yet for some type: it reads no photo (a deck still being taught)."""


class MissingTypes(DeckStoreError):
    """A new deck given no card of some type (``add`` without ``partial``)."""


class NotDeckOwner(DeckStoreError):
    """A change to a deck by someone who does not hold its owner token."""


class TitleTaken(DeckStoreError):
    """A deck's title another deck is shown as already (``DeckStore.title_taken``)."""

    def __init__(self, name: str, other: DeckInfo, remedy: str = "another name or title"):
        super().__init__(f"deck {other.name} is called {other.shown!r} already: give deck {name} {remedy} "
                         "(two decks of one title are not told apart where players choose a deck)")
        self.other = other


class HoldsTooManyDecks(DeckStoreError):
    """A client that started as many decks as it may keep (``DeckStore.add``'s ``per_client``)."""

    def __init__(self, held: int):
        super().__init__(f"this device has started {held} decks, the most it may keep: add your cards to one of "
                         "them (the service's keeper can remove some)")
        self.held = held


@dataclass
class DeckInfo:
    name: str  # the deck's key: its folder, URLs, `--deck` ("nas-stul")
    counts: dict[CardType, int]
    sources: list[str]
    builtin: bool
    owner: str | None = None  # the hash of the token that started the deck over the service
    title: str | None = None  # the name as the player typed it ("Náš stůl"); None: a deck given none
    added: int | None = None  # of the info an add returns: the cards it added (0: it knew every one)
    title_kept_by: str | None = None  # of the info an import returns: the deck here that kept its title
    client: str | None = None  # who started it over the service (its address: ``starts.client_key``)

    @property
    def shown(self) -> str:
        """What the deck is called where a player sees it: its title, else its name."""
        return self.title or self.name

    @property
    def complete(self) -> bool:
        return all(self.counts.values())

    @property
    def missing(self) -> list[str]:
        """The types with no reference yet (a deck built a photo at a time over the service)."""
        return [card.value for card, n in self.counts.items() if not n]


# Cyrillic spelt in Latin letters, as the page spells a deck's key from its title (app.js, deckSlug)
_LATIN = str.maketrans({"а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z",
                        "и": "i", "й": "j", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r",
                        "с": "s", "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "c", "ч": "ch", "ш": "sh",
                        "щ": "sch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya"})


def name_for(title: str) -> str:
    """A deck's key made from what a player calls it ("Naše kuchyň" -> "nase-kuchyn", "Мой лес" ->
    "moj-les"), as the page makes it; "" where nothing of it is left."""
    # step by step as deckSlug: marks U+0300-036F dropped, runs of others "-", leading "-" and "_"
    # and trailing "-" cut, then 40 characters (a key the page made is the key this suggests)
    text = re.sub(r"[\u0300-\u036f]", "", unicodedata.normalize("NFKD", title.lower().translate(_LATIN)))
    return re.sub(r"^[-_]+|-+$", "", re.sub(r"[^a-z0-9_-]+", "-", text))[:40]


def check_name(name: str) -> str:
    if not name:  # ("deck name '': ..." matched no message to translate: said in English in every language)
        raise DeckStoreError("a deck needs a name: use 1-40 lower-case letters, digits, '-' or '_'")
    if not NAME.fullmatch(name):  # fullmatch: "$" alone lets a trailing newline through
        shown = name if name.isprintable() else repr(name)[1:-1]  # (a line break said as \\n)
        raise DeckStoreError(f"deck name '{shown}': use 1-40 lower-case letters, digits, '-' or '_'")
    return name


def clean_title(title: str | None) -> str | None:
    """A deck's title as it is kept: composed (NFC), no control, format, surrogate or blank
    characters, a few combining marks a letter at most, any run of spaces or line breaks one
    space, at most ``MAX_TITLE_CHARS``; None without a letter or a digit."""
    if not title:
        return None
    # Whitespace (a line break, a tab: control characters too) is a space, then the other
    # control characters go ("line1\nline2" was kept as "line1line2": an attack).
    kept = "".join(" " if ch.isspace() or unicodedata.category(ch).startswith("Z") else ch
                   for ch in unicodedata.normalize("NFC", title)
                   if ch.isspace() or not unicodedata.category(ch).startswith("C"))
    # Blank letters go, and marks past a few on one letter; a title with no letter or digit is
    # none (a title of Hangul fillers showed nothing, one of 40 stacked marks spilled over the
    # menu: an attack).
    kept = marks_capped("".join(ch for ch in kept if ch not in BLANK))
    kept = " ".join(kept.split())[:MAX_TITLE_CHARS].strip()
    return kept if any(unicodedata.category(ch)[0] in "LN" for ch in kept) else None


def reference_crop(card_bgr: np.ndarray) -> np.ndarray:
    """A card image (upright or any turn, any size) squashed to the stored square."""
    return cv2.resize(card_bgr, (REFERENCE_PX, REFERENCE_PX), interpolation=cv2.INTER_AREA)


def _builtin_faces() -> dict[CardType, list[np.ndarray]]:
    from ecoscore.datasets.deck import load_deck  # the stand-in's faces ship with the package

    return {card: [reference_crop(f) for f in faces] for card, faces in load_deck(DEFAULT_DECK).faces.items()}


@functools.cache
def _builtin_counts() -> tuple[tuple[CardType, int], ...]:
    """How many faces of each type the built-in deck has (read once: its faces are 22 images, and
    every listing of the decks asked, 40 ms each time)."""
    return tuple((card, len(faces)) for card, faces in _builtin_faces().items())


def _imread(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:  # named within its deck: the data directory's path is the server's own
        raise DeckStoreError(f"deck {path.parent.parent.name!r}: {path.parent.name}/{path.name}: not a readable image "
                             "(remove it, or enrol the deck again)")
    return image


def _check_owner(name: str, owner_hash: str | None, owner: str, to: str) -> None:
    """Refuse a change by a token that did not start the deck over the service (``to``: what
    it would do), and any change over the service to a deck enrolled on the machine."""
    if owner_hash is None:
        raise NotDeckOwner(f"deck {name!r} was enrolled on the server: change it there (`ecoscore deck add`)")
    if not holds(owner_hash, owner):
        raise NotDeckOwner(f"only the phone that started deck {name!r} can {to} (its X-Deck-Token)")


def _clear_caches(folder: Path) -> None:
    """Drop a deck's cached embeddings: its crops changed."""
    for cache in folder.glob("embedded-*.npz"):
        cache.unlink()


def _drop_other_caches(kept: Path, version: str) -> None:
    """Drop a deck's caches other than ``kept``, just written for the deck's current state: its
    older states' of this model (a racing read's, written late), and another model's or metric's
    a day old (a new version fits every deck again; the old file was kept on disk for good). A
    day, not at once: two versions serving one data folder a while (a rolling deploy) would
    otherwise delete each other's caches on every read."""
    stale = time.time() - OTHER_VERSION_CACHE_S
    for cache in kept.parent.glob("embedded-*.npz"):
        if cache.name == kept.name:
            continue
        try:
            ours = cache.name == f"embedded-{version}.npz" or cache.name.startswith(f"embedded-{version}-")
            if ours or cache.stat().st_mtime < stale:
                cache.unlink(missing_ok=True)
        except OSError:
            pass  # gone meanwhile, or not ours to delete: it costs disk, not a read


def _drop(folder: Path) -> None:
    """Remove a deck's folder at once: renamed away first (atomic), so that a read caching the
    deck's embedding meanwhile cannot write into it again nor make the removal fail ("directory
    not empty": an attack forgot a deck while a read embedded it). Leftovers of earlier drops
    (a file written into the renamed folder) go too."""
    gone = folder.with_name(f".gone-{folder.name}-{os.getpid()}-{threading.get_ident()}")
    os.replace(folder, gone)
    for old in folder.parent.glob(".gone-*"):
        shutil.rmtree(old, ignore_errors=True)


_THREAD_LOCKS: dict[Path, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


def _thread_lock(root: Path) -> threading.Lock:
    """The one lock of this process for the deck folder ``root`` (every DeckStore on it shares it)."""
    with _THREAD_LOCKS_GUARD:
        return _THREAD_LOCKS.setdefault(root.resolve(), threading.Lock())


class DeckStore:
    def __init__(self, root: Path):
        self.root = root
        # Each deck's info as of its deck.toml (``_info_key``): a service lists every deck for
        # every phone that asks, and each listing counted 11 folders a deck (120-160 ms for 200
        # decks; an attack on a running server looped on it).
        self._infos: dict[str, tuple[tuple[int, int, int], DeckInfo]] = {}
        self._infos_lock = threading.Lock()

    def _dir(self, name: str) -> Path:
        return self.root / check_name(name)

    def names(self) -> list[str]:
        # (a dropped deck's folder, renamed ".gone-...", is none)
        stored = sorted(p.name for p in self.root.glob("[!.]*") if (p / "deck.toml").is_file()) if self.root.is_dir() else []
        return [DEFAULT_DECK, *(n for n in stored if n != DEFAULT_DECK)]

    def exists(self, name: str) -> bool:
        return name == DEFAULT_DECK or self.is_stored(name)

    def is_stored(self, name: str) -> bool:
        """A deck.toml of its own is here (the built-in deck has none, unless one was imported)."""
        return (self._dir(name) / "deck.toml").is_file()

    def info(self, name: str) -> DeckInfo:
        if name == DEFAULT_DECK and not self.is_stored(name):
            return DeckInfo(name, dict(_builtin_counts()), ["built in (the stand-in deck's faces)"], True)
        folder = self._dir(name)
        key = _info_key(folder)
        if key is None:
            # Not the store's other decks: over the service, their names are their players' own
            # (a stranger's unknown name listed every deck; the command line lists them itself).
            raise NoSuchDeck(name)
        known = self._infos.get(name)
        if known is not None and known[0] == key:
            return _copy(known[1])
        counts = {card: len(list((folder / card.value).glob("*.png"))) for card in CardType}
        meta = _meta(folder / "deck.toml")
        info = DeckInfo(name, counts, meta.sources, False, meta.owner, meta.title, client=meta.client)
        if _info_key(folder) == key:  # not changed while it was read
            with self._infos_lock:
                if len(self._infos) >= MAX_INFOS:
                    self._infos.clear()
                self._infos[name] = (key, info)
        return _copy(info)

    def images(self, name: str) -> dict[CardType, list[np.ndarray]]:
        if self.info(name).builtin:
            return _builtin_faces()
        folder = self._dir(name)
        return {card: [_imread(f) for f in sorted((folder / card.value).glob("*.png"))] for card in CardType}

    def _state(self, name: str, builtin: bool) -> str:
        """The deck's state as its cache's name carries it ("" for the built-in deck)."""
        return "" if builtin else "-{}-{}".format(*(self.stamp(name) or (0, 0)))

    def stamp(self, name: str) -> tuple[int, int] | None:
        """What changes whenever the deck does (its deck.toml is rewritten by every add): a
        process that keeps a deck loaded compares it to notice another process's changes."""
        key = _info_key(self._dir(name))
        return None if key is None else key[:2]

    @contextmanager
    def _locked(self):
        """One writer at a time, across the processes sharing this folder (POSIX locks hold on NFS
        too) and across the threads of this one: a POSIX lock is the process's, so two requests of
        one server both held it, and two photos added at once overwrote each other's cards."""
        import fcntl

        with _thread_lock(self.root):
            self.root.mkdir(parents=True, exist_ok=True)
            with open(self.root / ".lock", "a+b") as handle:
                fcntl.lockf(handle, fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.lockf(handle, fcntl.LOCK_UN)

    def called(self, text: str) -> str:
        """The key of the deck players see as ``text`` (its title, as `deck list` and the page show
        it), else ``text`` as it is. The commands take a deck's key, but a player types what they
        see: `--deck "Naše kuchyň"` was refused as no deck's name (a newcomer's run). A title is
        one deck's (``title_taken``), so it names one deck; a deck's key is never taken for a
        title, but a title written as a key may be ("garden" for the deck ``k1``)."""
        if not text or (NAME.fullmatch(text) and self.exists(text)):
            return text
        for name in self.names():
            if name == DEFAULT_DECK and not self.is_stored(name):
                continue  # (the built-in deck has no title: its faces are not loaded for it)
            try:
                info = self.info(name)
            except DeckStoreError:  # removed since it was listed
                continue
            if info.title and alike(info.title, text):
                return name
        return text

    def title_taken(self, name: str, title: str | None) -> DeckInfo | None:
        """The other deck already called what deck ``name`` would be called with ``title``: the
        title as it would be kept (``clean_title``), compared case-insensitively with what each
        other deck is shown as (its title, else its key; a new deck of no title, by its key too).
        None if no other is, or if ``name`` keeps the title it has (a deck's title is given once). Two decks both called "Naše
        kuchyň" stood side by side in the page's menu and ``deck list``, one not told from the
        other. ``add`` refuses such a title (``TitleTaken``); an import leaves a title to the deck
        here, and is refused only where its key is another deck's title too."""
        wanted = clean_title(title)
        if self.is_stored(name):
            if wanted is None or self.info(name).title:
                return None
        else:
            wanted = wanted or name  # a new deck of no title is shown by its key ("foo" beside a "Foo": a helper's attack)
        for other in self.names():
            if other == name:
                continue
            try:
                info = self.info(other)
            except DeckStoreError:  # removed since it was listed
                continue
            if alike(info.shown, wanted):  # as players' names: "Moje kuchyn" beside "Moje kuchyň" (an attack)
                return info
        return None

    def check_owner(self, name: str, owner: str) -> None:
        """``NotDeckOwner`` unless ``owner`` may add cards to deck ``name`` over the service (a
        deck not stored yet it may start): asked before a photo is read, as ``add`` asks after."""
        if self.is_stored(name):
            _check_owner(name, self.info(name).owner, owner, "add cards to it")

    def add(self, name: str, crops: dict[CardType, list[np.ndarray]], source: str, owner: str | None = None,
            max_decks: int | None = None, partial: bool = False, title: str | None = None,
            client: str | None = None, per_client: int | None = None) -> DeckInfo:
        """Add reference crops to a deck (created if new). A new deck must have every type, unless
        ``partial``: the page builds a deck a photo at a time, and a tableau seldom holds all 11
        types; such a deck reads nothing until it has them (``references`` says which it lacks).

        ``owner``: the token of whoever adds over the service. A deck it creates keeps the
        token's hash, and only that token adds to it; a deck enrolled on the machine (no owner)
        the service does not change. Without ``owner`` (the command line, with the data
        directory in hand) any deck may be added to. ``max_decks``: no new deck past this many
        (counted under the lock: reads at once cannot each start one past it). ``title``: the name
        as the player typed it (``clean_title``), kept for a deck that has none yet (its first add,
        most often); another deck's (``title_taken``) is refused. ``client``: who starts a new deck over the service, kept with it; it holds
        at most ``per_client`` decks (``HoldsTooManyDecks``): finished decks are kept for good,
        and one address at its hourly share filled every place in a day (an attack)."""
        if name == DEFAULT_DECK and not self.is_stored(name):
            # A stored "standin" beside the built-in: listed, yet every photo read with the built-in
            # classifier (an attack on the command line, by add and by import).
            raise DeckStoreError(f"{DEFAULT_DECK!r} is the built-in deck's name: give yours another")
        with self._locked():
            if (clash := self.title_taken(name, title)) is not None:  # under the lock: two adds at once
                raise TitleTaken(name, clash)
            new = not self.is_stored(name)
            if max_decks is not None and new and len(self.names()) - 1 >= max_decks:
                raise DeckStoreError(f"the service keeps at most {max_decks} decks: no new one can be started "
                                     "(its keeper can remove some)")
            if new and client and per_client is not None:
                held = sum(1 for other in self.names() if other != DEFAULT_DECK and self.info(other).client == client)
                if held >= per_client:
                    raise HoldsTooManyDecks(per_client)
            return self._add(name, crops, source, owner, partial, title, client)

    def _add(self, name: str, crops: dict[CardType, list[np.ndarray]], source: str, owner: str | None = None,
             partial: bool = False, title: str | None = None, client: str | None = None) -> DeckInfo:
        folder = self._dir(name)
        before = self.info(name) if self.is_stored(name) else None
        owner_hash = before.owner if before else (token_hash(owner) if owner else None)
        if before and owner is not None:
            _check_owner(name, owner_hash, owner, "add cards to it")
        have = before.counts if before else {c: 0 for c in CardType}
        missing = [c.value for c in CardType if not have[c] and not crops.get(c)]
        if missing and not partial:
            raise MissingTypes(f"deck {name!r} would have no reference for: {', '.join(missing)} "
                                 "(give at least one card of every type)")
        if not any(crops.values()):
            raise DeckStoreError(f"no card to add to deck {name!r}")
        if sum(have.values()) + sum(map(len, crops.values())) > MAX_REFERENCES:
            raise DeckStoreError(f"deck {name!r} would hold more than {MAX_REFERENCES} references")
        sources = before.sources if before else []
        title = (before.title if before else None) or clean_title(title)
        added = 0
        written: list[str] = []
        for card, images in crops.items():
            (folder / card.value).mkdir(parents=True, exist_ok=True)
            # The same card given twice (a folder added again) is kept once.
            there = list((folder / card.value).glob("*.png"))
            seen = {hashlib.sha256(f.read_bytes()).digest() for f in there}
            # Numbered on from the highest there, not from the count: a reference removed by hand
            # (as a refusal tells) left a gap, and the count overwrote the last one.
            i = 1 + max((int(f.stem) for f in there if f.stem.isascii() and f.stem.isdigit()), default=-1)
            for image in images:
                png = cv2.imencode(".png", reference_crop(image))[1].tobytes()
                digest = hashlib.sha256(png).digest()
                if digest not in seen:
                    seen.add(digest)
                    (folder / card.value / f"{i:04d}.png").write_bytes(png)
                    written.append(f"{card.value}/{i:04d}.png")
                    i += 1
                    added += 1
        if added or before is None:  # a source that added nothing is not one
            _write_toml(folder, name, [*sources, source], owner_hash, title, before.client if before else client)
        # What this add wrote, so that it can be taken back (a card named wrong on the page). An add
        # of nothing new is the last add too: taking it back takes back nothing (it had taken back
        # the add before it, and a deck's first add the whole deck: a photo sent twice, an attack's find).
        (folder / LAST_ADD).write_text(json.dumps({"files": written, "source": _printable(source)}), encoding="utf-8")
        _clear_caches(folder)
        return replace(self.info(name), added=added)

    def forget_last(self, name: str, owner: str | None = None) -> DeckInfo | None:
        """Take back the deck's last add (its cards, and its source), once: a player who named a
        card wrong and remembered it. Returns the deck as it is now, or None when that add was
        its first (the deck is removed). ``owner``: as for ``add``."""
        with self._locked():
            info = self.info(name)
            if info.builtin:  # (it said "cannot learn cards": nothing was being learnt, a newcomer's run)
                raise DeckStoreError("the built-in deck has learnt no cards: there is nothing to take back")
            if owner is not None:
                _check_owner(name, info.owner, owner, "make it forget cards")
            folder = self._dir(name)
            try:
                last = json.loads((folder / LAST_ADD).read_text(encoding="utf-8"))
                files = [str(f) for f in last["files"]]
            except (OSError, ValueError, KeyError, TypeError):
                raise DeckStoreError(f"deck {name!r} has no last cards to forget (they were forgotten already)") from None
            if not files:
                raise DeckStoreError(f"deck {name!r} learned no card from its last photo (it knew every one "
                                     "already): nothing to forget")
            if len(info.sources) <= 1:  # its first add: the deck was only that
                _drop(folder)
                return None
            for rel in files:
                if LAST_FILE.fullmatch(rel):  # only a card's own file, whatever the JSON says
                    (folder / rel).unlink(missing_ok=True)
            _write_toml(folder, name, info.sources[:-1], info.owner, info.title, info.client)
            (folder / LAST_ADD).unlink()
            _clear_caches(folder)
            return self.info(name)

    def prune_unfinished(self, idle_days: float, now: float | None = None) -> list[str]:
        """Remove the decks started on a phone (an owner's) that still lack a type and have not
        been added to for ``idle_days``; returns their names. They hold places of the service's
        ``max_decks`` and read nothing: never pruned, one client started enough half-built decks
        in a day to keep every place for good (an attack). A whole deck, or one enrolled on the
        machine, is never pruned."""
        cutoff = (time.time() if now is None else now) - idle_days * 86400

        def stale(name: str) -> bool:  # deck.toml is written again by every add
            return (self._dir(name) / "deck.toml").stat().st_mtime < cutoff

        gone = []
        for name in self.names():
            try:
                info = self.info(name)
                if info.owner is None or not info.missing or not stale(name):  # (the built-in deck has no owner)
                    continue
                with self._locked():
                    if stale(name):  # not added to meanwhile
                        _drop(self._dir(name))
                        gone.append(name)
            except (DeckStoreError, OSError):  # removed meanwhile
                continue
        return gone

    def remove(self, name: str) -> None:
        folder = self._dir(name)
        if not self.is_stored(name):
            if name == DEFAULT_DECK:  # ("no enrolled deck 'standin' (...)" first denied the deck was there)
                raise DeckStoreError(f"{name!r} is the built-in deck: it cannot be removed")
            raise DeckStoreError(f"no enrolled deck {name!r}")
        with self._locked():
            _drop(folder)

    def _readable(self, name: str, partial: bool, embedder: CardEmbedder) -> tuple[DeckInfo, str, Path]:
        """The deck's info, if it can be read with (every type; ``partial``: any), its state, and
        the cache its embedding by ``embedder`` has in that state."""
        info = self.info(name)
        if not info.complete and not (partial and any(info.counts.values())):
            raise IncompleteDeck(f"deck {name!r} has no reference yet for: {', '.join(info.missing)}: remember a photo "
                                 "that holds them (or add them with `ecoscore deck add`)")
        state = self._state(name, info.builtin)
        folder = self.root / "_builtin" if info.builtin else self._dir(name)
        return info, state, folder / f"embedded-{embedder.version}{state}.npz"

    def references(self, name: str, embedder: CardEmbedder, partial: bool = False) -> References:
        """The deck embedded by ``embedder``'s model (cached beside the crops). A deck still lacking
        a type reads nothing, unless ``partial``: then its types so far, a type with none never
        named (for the page's guesses while a deck is taught, never for a score)."""
        # The cache is named by the deck's state too: a read that embedded the deck while cards
        # were added wrote its cache after the add had cleared the old one, and the new cards
        # went unread until the next add (an attack on a running server).
        info, state, cache = self._readable(name, partial, embedder)
        if cache.is_file():
            try:
                with np.load(cache) as data:
                    scale = float(data["type_scale"])
                    cached = DeckMetric(data["whiten"], data["prototypes"], data["prototype_types"],
                                        None if np.isnan(scale) else scale)
                    return References(name, data["vectors"], data["types"], data["patterns"], data["pattern_types"],
                                      cached)
            except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
                pass  # a damaged cache (a disk full, a crash mid-write elsewhere): embedded again below
        # The crops read under the store's lock: a forget deleting them meanwhile made a read fail
        # on a half-deleted deck (an attack). Embedded outside it: that is the slow part.
        # Its completeness and state are read again with them: a photo forgotten since the check
        # above took a type away, and embedding what was left failed as no refusal (a 500: an
        # attack on a running server, reading with a deck while its owner forgot and re-added).
        with self._locked():
            info, state, cache = self._readable(name, partial, embedder)
            images = self.images(name)
        refs = References.embed(name, embedder, images, partial=not info.complete)
        metric = refs.metric
        if metric is None:  # References.embed fits one: never cache a deck without it
            return refs
        try:
            if info.builtin:  # an enrolled deck's folder is never made here: it may be gone since
                cache.parent.mkdir(parents=True, exist_ok=True)
            part = cache.with_name(f".{cache.name}.{os.getpid()}.{threading.get_ident()}")  # whole or not at all
            with open(part, "wb") as handle:
                np.savez(handle, vectors=refs.vectors, types=refs.types, patterns=refs.patterns,
                         pattern_types=refs.pattern_types, whiten=metric.whiten,
                         prototypes=metric.prototypes, prototype_types=metric.types,
                         type_scale=np.float64(np.nan if metric.type_scale is None else metric.type_scale))
            os.replace(part, cache)
            if state == self._state(name, info.builtin):
                _drop_other_caches(cache, embedder.version)  # a late read, the deck changed since: keep the new
        except OSError:
            pass  # read-only data directory: embed again next time
        return refs


def _printable(source: str) -> str:
    """A source as deck.toml keeps it: no control, format or surrogate characters (a filename
    from an upload holding DEL made deck.toml unreadable, and every deck listing fail), capped."""
    kept = "".join(ch for ch in source if not unicodedata.category(ch).startswith("C"))
    return kept[:MAX_SOURCE_CHARS]


class _Meta(NamedTuple):
    sources: list[str]
    owner: str | None  # the owner's token hash
    title: str | None
    client: str | None = None  # the address that started it over the service


def _meta(path: Path) -> _Meta:
    """The sources a deck.toml lists, its owner's token hash and its title. A file no one can
    read lists no sources, rather than breaking every listing of the decks (it is written whole
    again by the deck's next add), no owner (the service then leaves the deck alone) and no
    title (the deck is shown by its name). A title is shown as ``clean_title`` keeps one, however
    the file was written."""
    try:
        meta = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return _Meta(["(deck.toml unreadable: sources unknown)"], None, None)
    owner, title, client = meta.get("owner"), meta.get("title"), meta.get("client")
    return _Meta([str(s) for s in meta.get("sources", [])],
                 owner if isinstance(owner, str) and OWNER_HASH.fullmatch(owner) else None,
                 clean_title(title) if isinstance(title, str) else None,
                 client[:MAX_CLIENT_KEY] if isinstance(client, str) and client else None)


def deck_toml(name: str, sources: list[str], owner_hash: str | None = None, title: str | None = None,
              client: str | None = None) -> str:
    meta = {"name": name, "title": clean_title(title), "sources": [_printable(s) for s in sources[-MAX_SOURCES:]],
            "owner": owner_hash, "client": client}  # neither owner nor client in an export: a friend's copy is theirs
    return tomli_w.dumps({key: value for key, value in meta.items() if value or key == "sources"})


def _write_toml(folder: Path, name: str, sources: list[str], owner_hash: str | None = None,
                title: str | None = None, client: str | None = None) -> None:
    """Written whole or not at all (a new file put in place), at a later time than the last
    writing's: ``_info_key`` and ``stamp`` tell each writing apart, however soon after the last."""
    folder.mkdir(parents=True, exist_ok=True)
    fresh, path = folder / ".deck.toml.new", folder / "deck.toml"
    fresh.write_bytes(deck_toml(name, sources, owner_hash, title, client).encode("utf-8"))
    before = _info_key(folder)
    os.replace(fresh, path)
    # A later time than the last writing's, always: a file system's clock ticks coarsely (1-10 ms),
    # and the new file may take the old one's inode back, so two writings within a tick could
    # look alike to another process (a review). Under the store's lock: one writer at a time.
    after = path.stat().st_mtime_ns
    if before is not None and after <= before[0]:
        os.utime(path, ns=(before[0] + 1, before[0] + 1))


def _info_key(folder: Path) -> tuple[int, int, int] | None:
    """What tells one writing of a deck's deck.toml from another (None: no deck there). A deck's
    cards change only with its deck.toml, every add and forget writing it anew."""
    try:
        st = (folder / "deck.toml").stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def _copy(info: DeckInfo) -> DeckInfo:
    return replace(info, counts=dict(info.counts), sources=list(info.sources))


def default_store() -> DeckStore:
    from ecoscore.paths import data_dir

    return DeckStore(data_dir() / "decks")


def open_matcher(name: str | None = None, store: DeckStore | None = None, embedder: CardEmbedder | None = None,
                 concurrent: int = 1, threads: int | None = None):
    """The ``CardMatcher`` of an enrolled deck (the stand-in by default)."""
    from .matcher import CardMatcher

    embedder = embedder or CardEmbedder(concurrent=concurrent, threads=threads)
    store = store or default_store()
    return CardMatcher(embedder, store.references(name or DEFAULT_DECK, embedder))


def open_reader(deck: str | None = None, concurrent: int = 1, store: DeckStore | None = None,
                threads: int | None = None):
    """A reader whose cells are named by ``deck``'s references (no deck: the shipped classifier,
    trained on the stand-in deck)."""
    from .pipeline import Reader

    if deck is None or deck == DEFAULT_DECK:  # the stand-in has a classifier trained on its art
        return Reader(concurrent=concurrent, threads=threads)
    matcher = open_matcher(deck, store, concurrent=concurrent, threads=threads)
    return Reader(classifier=matcher, concurrent=concurrent, threads=threads)
