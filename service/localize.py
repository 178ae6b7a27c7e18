"""The API's JSON answers in the language a request asks for (``?lang=`` first, then
Accept-Language): an ASGI middleware over the whole app (``install``)."""
from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool

from .i18n import DEFAULT, request_lang
from .translation import translate_doc


class Localize:
    """ASGI middleware: the API's JSON answers in the language the request asks for (``?lang=``
    first, then Accept-Language). English answers, and everything that is not /api/ JSON, pass
    through untouched and unbuffered."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            return await self.app(scope, receive, send)
        from urllib.parse import parse_qs

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", [None])[0]
        lang = request_lang(query, headers.get("accept-language"))
        if lang == DEFAULT:
            async def vary(message):
                if message["type"] == "http.response.start":
                    message["headers"] = [*message.get("headers", []), (b"vary", b"Accept-Language")]
                await send(message)
            return await self.app(scope, receive, vary)
        start, body = None, []

        async def buffer(message):
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                ctype = dict((k.lower(), v) for k, v in message.get("headers", [])).get(b"content-type", b"")
                if not ctype.startswith(b"application/json"):
                    start = None
                    await send(message)
                return
            if message["type"] == "http.response.body" and start is not None:
                body.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                # In a worker thread: a whole game's answer holds hundreds of messages, each matched
                # against every template (30-40 ms on 2 cores), and on the event loop every other
                # request waited for it (an attack: /health 5 × slower under Russian answers).
                data = await run_in_threadpool(_localized, b"".join(body), lang)
                hdrs = [(k, v) for k, v in start.get("headers", []) if k.lower() not in (b"content-length", b"content-language")]
                hdrs += [(b"content-length", str(len(data)).encode()), (b"content-language", lang.encode()),
                         (b"vary", b"Accept-Language")]
                await send({**start, "headers": hdrs})
                await send({"type": "http.response.body", "body": data})
                return
            await send(message)

        return await self.app(scope, receive, buffer)


def _localized(data: bytes, lang: str) -> bytes:
    """A JSON answer's body with its messages in ``lang`` (a body that is not JSON as it is)."""
    try:
        return json.dumps(translate_doc(json.loads(data), lang), ensure_ascii=False).encode()
    except ValueError:
        return data


def install(app) -> None:
    """Translate the API's JSON answers (see Localize)."""
    app.add_middleware(Localize)
