"""The decks the service reads with: each enrolled deck's matcher, loaded on first use and kept
for the next photos (a bounded few), beside the reader's own classifier for the default.

Decks are files in the data directory (vision/deckstore.py); several workers, or machines with
that directory on a shared volume, see one another's changes: a kept matcher is reloaded when
its deck's stamp has moved."""
from __future__ import annotations

import threading
from collections import OrderedDict

from ecoscore.vision.deckstore import DeckStore, check_name, default_store
from ecoscore.vision.matcher import CardEmbedder, CardMatcher

KEEP = 16  # matchers kept loaded; each is a few hundred vectors


class Decks:
    def __init__(self, store: DeckStore | None = None, concurrent: int = 1, threads: int | None = None):
        self.store = store or default_store()
        self._concurrent, self._threads = concurrent, threads
        self._embedder: CardEmbedder | None = None
        self._loaded: OrderedDict[str, tuple[object, CardMatcher]] = OrderedDict()
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}  # one per deck name: a deck is embedded once at a time

    @property
    def embedder(self) -> CardEmbedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = CardEmbedder(concurrent=self._concurrent, threads=self._threads)
            return self._embedder

    def matcher(self, name: str) -> CardMatcher:
        """The matcher of deck ``name``; ``DeckStoreError`` if there is no such deck."""
        check_name(name)
        kept = self._kept(name)
        if kept is not None:
            return kept
        # Reads of a deck not loaded yet wait for one embedding of it, not one each: four at
        # once embedded a deck of 389 references four times over (57 s of CPU, RSS +3.9 GB).
        with self._lock:
            loading = self._loading.setdefault(name, threading.Lock())
        try:
            with loading:
                kept = self._kept(name)
                if kept is not None:
                    return kept
                stamp = self.store.stamp(name)
                matcher = CardMatcher(self.embedder, self.store.references(name, self.embedder))
                with self._lock:
                    self._loaded[name] = (stamp, matcher)
                    self._loaded.move_to_end(name)
                    while len(self._loaded) > KEEP:
                        self._loaded.popitem(last=False)
            return matcher
        finally:
            # The lock lives only while a load of the deck is under way: kept for every name a
            # client sent (most naming no deck at all), the map grew without bound. A read
            # still waiting on this lock finds the matcher kept when it gets it.
            with self._lock:
                if self._loading.get(name) is loading and not loading.locked():
                    del self._loading[name]

    def guesser(self, name: str) -> CardMatcher:
        """A matcher of deck ``name`` even before it has every type (a type with no reference is
        never named): the page's guesses at a photo's cards while the deck is taught, each for the
        player to confirm. Never kept beside ``matcher``'s: a score is read only with a whole deck.
        ``DeckStoreError`` if there is no such deck."""
        check_name(name)
        return CardMatcher(self.embedder, self.store.references(name, self.embedder, partial=True))

    def _kept(self, name: str) -> CardMatcher | None:
        """The matcher kept for ``name``, if its deck has not changed since it was loaded."""
        stamp = self.store.stamp(name)
        with self._lock:
            if name in self._loaded and self._loaded[name][0] == stamp:
                self._loaded.move_to_end(name)
                return self._loaded[name][1]
        return None
