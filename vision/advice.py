"""How to retake a photo that cannot be read well: every piece of advice the reader gives, in
one place, each one sentence template with named parameters.

The page translates doubts; it can key a translation on ``Advice.key`` and fill in the same
parameters (``Advice.parse`` gives them back from the English sentence). Parameter names follow
the service's catalogue (``n`` a count, ``where`` a list of cells "row 1 col 2, row 3 col 4"). A doubt that carries
advice is the advice's sentence, nothing else, so the two never drift apart.
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass


@dataclass(frozen=True)
class Advice:
    key: str
    template: str  # str.format fields: the parameters

    def __call__(self, **params) -> str:
        return self.template.format(**params)

    @property
    def fields(self) -> list[str]:
        return [name for _, name, _, _ in string.Formatter().parse(self.template) if name]

    def parse(self, text: str) -> dict[str, str] | None:
        """The parameters of a sentence made from this template, or None if it was not."""
        pattern = re.escape(self.template)
        for name in self.fields:
            pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>.+?)", 1)
        m = re.fullmatch(pattern, text)
        return m.groupdict() if m else None


TOO_STEEP = Advice(
    "too_steep",
    "taken at a low angle (the far cards look {ratio} times smaller than the near ones): "
    "hold the phone higher, more over the cards",
)
TOO_FAR = Advice(
    "too_far",
    "the cards are small in the photo (about {px} px wide): come closer so the tableau fills the frame",
)
CUT_BY_FRAME = Advice(
    "cut_by_frame",
    "the tableau is cut by the frame ({n} of 20 cells outside the photo): step back or turn the phone "
    "so all 20 cards are in view",
)
TOO_DARK = Advice(
    "too_dark",
    "the photo is too dark (its brightest cards at {level} of 255): add light, or keep shadows off the cards",
)
GLARE = Advice(
    "glare",
    "glare washes out {where}: tilt the phone or move the lamp so its reflection leaves the cards",
)
BLURRED = Advice(  # defocus or a shaking hand: a lamp's dim light means a slow shutter
    "blurred",
    "the photo is blurred (the cards' edges and pictures are soft): hold the phone still, tap the cards "
    "on the screen to focus, and add light so the shutter is quicker",
)
NO_COLOUR = Advice(  # a black-and-white photo, or one through a filter that takes the colour out
    "no_colour",
    "the photo has no colour (black and white, or a filter): cards are told apart by their colours too, "
    "so take it in colour",
)
NO_GRID = Advice(  # a photo with no grid found and nothing else the photo shows wrong
    "no_grid",
    "photograph the whole tableau from above, all its cards in view, in even light",
)
ALL = (TOO_STEEP, TOO_FAR, CUT_BY_FRAME, TOO_DARK, GLARE, BLURRED, NO_COLOUR, NO_GRID)


def which(text: str) -> tuple[Advice, dict[str, str]] | None:
    """The advice a doubt's sentence was made from, with its parameters (None: no advice)."""
    for advice in ALL:
        params = advice.parse(text)
        if params is not None:
            return advice, params
    return None
