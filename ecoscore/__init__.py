"""ecoscore: score a photographed Ecosystem tableau.

The repo's top-level folders are this package's subpackages: ``ecoscore.scoring`` (the rules),
``ecoscore.datasets`` (decks and the photo renderer), ``ecoscore.vision`` (photo to grid),
``ecoscore.service`` (the web app).
"""
__version__ = "0.1.0"
