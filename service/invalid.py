"""FastAPI's 422, worded by us: each error's ``msg`` one of the catalogue's ``api.v_*`` templates, so
that it is translated on the way out like every other message (``localize.Localize``) and on the page.

Pydantic's own words are English only ("Input should be less than or equal to 12": a player at a
Russian table read it on the page, a walk). The answer keeps FastAPI's shape (``detail``: a list of
``loc``, ``msg``, ``type``, ``ctx``), so a client that reads ``type`` and ``loc`` sees no change.
An error of a kind not worded here keeps pydantic's words, after the field's name.
"""
from __future__ import annotations

import re

from ecoscore.text import cut

from .i18n import fill

# Where a value came from: not part of the field's name ("neutral.wolves", not "body.neutral.wolves").
_SOURCES = {"body", "query", "path", "header", "cookie"}
# A union's branches appear in ``loc`` by their type ("grid", "str"; "grid", "list[...]", 0;
# "constrained-str"): left out of the field's name (ours are written with "_", never "-").
_BRANCH = re.compile(r"^[a-z_-]*\[.*\]$|^[a-z]+(-[a-z]+)+$|^(str|int|float|bool|list|dict|tuple|none)$", re.S)
MAX_FIELD = 80  # a field's name can be a client's key (a dict's): it is cut

# pydantic's error types → the catalogue's keys
_BY_TYPE = {
    "missing": "api.v_missing",
    "less_than_equal": "api.v_at_most", "less_than": "api.v_less_than",
    "greater_than_equal": "api.v_at_least", "greater_than": "api.v_more_than",
    "int_type": "api.v_whole_number", "int_parsing": "api.v_whole_number", "int_from_float": "api.v_whole_number",
    "int_parsing_size": "api.v_whole_number",  # ("1" × 5000: "exceeded maximum size", left in English: an attack)
    "float_type": "api.v_number", "float_parsing": "api.v_number",
    "string_type": "api.v_text", "string_unicode": "api.v_text",
    "bool_type": "api.v_true_false", "bool_parsing": "api.v_true_false",
    "list_type": "api.v_list", "tuple_type": "api.v_list",
    "dict_type": "api.v_object", "model_type": "api.v_object", "model_attributes_type": "api.v_object",
    "string_pattern_mismatch": "api.v_form",
    "extra_forbidden": "api.v_not_a_field",
    "json_invalid": "api.v_json",
}
_BOUNDS = {"less_than_equal", "less_than", "greater_than_equal", "greater_than"}
# Lengths, by what is counted: a text's characters or a list's items (plural forms by the limit).
_LENGTHS = {"string_too_long": "api.v_chars_at_most", "string_too_short": "api.v_chars_at_least",
            "too_long": "api.v_items_at_most", "too_short": "api.v_items_at_least"}


def field_name(loc: object) -> str:
    """``("body", "players", 0, "grid", "str")`` → ``"players.0.grid"``."""
    parts = list(loc) if isinstance(loc, list | tuple) else [loc]
    if parts and parts[0] in _SOURCES:
        source, parts = parts[0], parts[1:]
    else:
        source = "body"
    # A header's name is hyphenated itself ("x-deck-token" was taken for a branch: "header: missing").
    named = 1 if source == "header" else 0
    kept = [str(p) for p in parts[:named]] + [str(p) for p in parts[named:] if not (isinstance(p, str) and _BRANCH.match(p))]
    name = ".".join(kept) or str(source)
    return cut(name, MAX_FIELD)


def worded(error: dict) -> str:
    """One validation error of FastAPI (its ``type``, ``loc``, ``ctx``) in the catalogue's words."""
    kind, ctx = str(error.get("type", "")), error.get("ctx") or {}
    field = field_name(error.get("loc", ()))
    msg = str(error.get("msg", ""))
    if "Expected UploadFile" in msg:
        return fill("en", "api.v_file_expected", field=field)
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return fill("en", "api.v_empty", field=field)
    if kind in _LENGTHS:
        bound = ctx.get("max_length", ctx.get("min_length"))
        if isinstance(bound, int):
            return fill("en", _LENGTHS[kind], field=field, n=bound)
    elif kind in _BOUNDS:
        limit = next(iter(ctx.values()), None)
        if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0:
            return fill("en", _BY_TYPE[kind], field=field, limit=limit)
    elif kind == "literal_error" and isinstance(ctx.get("expected"), str):
        # "'game', 'two-player' or 'solo'": the values, without the English "or"
        values = re.findall(r"'([^']*)'", ctx["expected"])
        if values:
            return fill("en", "api.v_one_of", field=field, values=" / ".join(values))
    elif kind in _BY_TYPE:
        return fill("en", _BY_TYPE[kind], field=field)
    return f"{field}: {msg.removeprefix('Value error, ')}"
