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

    @property
    def embedder(self) -> CardEmbedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = CardEmbedder(concurrent=self._concurrent, threads=self._threads)
            return self._embedder

    def matcher(self, name: str) -> CardMatcher:
        """The matcher of deck ``name``; ``DeckStoreError`` if there is no such deck."""
        check_name(name)
        stamp = self.store.stamp(name)
        with self._lock:
            if name in self._loaded and self._loaded[name][0] == stamp:
                self._loaded.move_to_end(name)
                return self._loaded[name][1]
        matcher = CardMatcher(self.embedder, self.store.references(name, self.embedder))
        with self._lock:
            self._loaded[name] = (stamp, matcher)
            self._loaded.move_to_end(name)
            while len(self._loaded) > KEEP:
                self._loaded.popitem(last=False)
        return matcher
