"""Property-based test of the whole API from its OpenAPI document (schemathesis): generated
requests, valid and not, to every operation of a live server with the real models; no answer
may be a server error or break the schema its route promises.

Bounded in time for CI: ``ECOSCORE_FUZZ_EXAMPLES`` (default 40, about 1,600 requests) examples per operation. The
longer run (>= 5,000 requests) is ``python bench/bench_fuzz.py``, which sets it higher.
"""
import os
import random

import pytest
import schemathesis
from conftest import needs_models
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance
from service_helpers import live_server

from ecoscore.service.app import Settings, create_app

pytestmark = [needs_models, pytest.mark.slow]
EXAMPLES = int(os.environ.get("ECOSCORE_FUZZ_EXAMPLES", "40"))
SENT = {"requests": 0, "by_status": {}}

schema = schemathesis.openapi.from_dict(create_app(Settings()).openapi())


@pytest.fixture(scope="module")
def api(tmp_path_factory, reader):
    import requests

    db = tmp_path_factory.mktemp("fuzz") / "store.sqlite3"
    with live_server(Settings(db_url=f"sqlite:///{db}", public_url="https://eco.example"), reader) as port:
        base = f"http://127.0.0.1:{port}"
        # rooms to aim at, so writes reach the store and not only 404s
        rooms = [requests.post(f"{base}/api/rooms", json={"mode": m}, timeout=10).json() for m in
                 ("game", "two-player", "solo")]
        yield base, rooms
    counts = ", ".join(f"{k}: {v}" for k, v in sorted(SENT["by_status"].items()))
    print(f"\nfuzz: {SENT['requests']} requests ({counts})")


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_server_error_and_every_answer_keeps_its_schema(case, api):
    base, rooms = api
    pick = random.Random(repr(case.path_parameters) + repr(case.headers))
    if case.path_parameters and "room_id" in case.path_parameters and pick.random() < 0.7:
        room = pick.choice(rooms)
        case.path_parameters["room_id"] = room["id"]
        if case.headers and "X-Room-Token" in case.headers and pick.random() < 0.7:
            case.headers["X-Room-Token"] = room["owner_token"]
    response = case.call(base_url=base, timeout=30)
    SENT["requests"] += 1
    SENT["by_status"][response.status_code] = SENT["by_status"].get(response.status_code, 0) + 1
    case.validate_response(response, checks=[not_a_server_error, response_schema_conformance,
                                             content_type_conformance])
