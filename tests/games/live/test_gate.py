"""The live process's door (`games.live.gate`): one client's burst is refused before Django
reads anything, and another client's requests go through as before."""

import asyncio

import orjson
from asgiref.testing import ApplicationCommunicator

from azul_site import asgi
from games.live.gate import SPARE, RequestsPerClient


def scope(*headers: tuple[bytes, bytes]) -> dict:
    return {
        "type": "http",
        "method": "GET",
        "path": "/games/x/live/",
        "query_string": b"wait=60",
        "headers": list(headers),
    }


def session(key: str) -> tuple[bytes, bytes]:
    return (b"cookie", f"theme=dark; sessionid={key}".encode())


class Held:
    """A downstream app whose requests wait until released, like long waits."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.entered = 0

    async def __call__(self, scope, receive, send) -> None:
        self.entered += 1
        await self.release.wait()
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


async def answer(app, request_scope) -> dict:
    communicator = ApplicationCommunicator(app, request_scope)
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(5)
    body = await communicator.receive_output(5)
    return {**start, "body": body["body"]}


def test_a_client_past_its_share_is_refused_at_the_door(settings):
    settings.LIVE_MAX_WAITS_PER_PLAYER = 3
    asyncio.run(burst_then_others())


async def burst_then_others() -> None:
    held = Held()
    gate = RequestsPerClient(held)
    # Her share of waits (3), and the few requests beyond it that need not wait (SPARE).
    room = 3 + SPARE
    waits = [asyncio.create_task(answer(gate, scope(session("mallory")))) for _ in range(room)]
    while held.entered < room:
        await asyncio.sleep(0.01)

    refused = await answer(gate, scope(session("mallory")))
    assert refused["status"] == 429
    assert dict(refused["headers"])[b"retry-after"] == b"5"
    body = orjson.loads(refused["body"])
    assert body["code"] == "too_many_waits"
    assert "already waiting for 3 games" in body["detail"]
    assert held.entered == room, "the refused request reached Django"

    # Another player's session, and a script's token, go through meanwhile.
    others = [
        asyncio.create_task(answer(gate, scope(session("alice")))),
        asyncio.create_task(answer(gate, scope((b"authorization", b"Token abc")))),
    ]
    while held.entered < room + 2:
        await asyncio.sleep(0.01)

    held.release.set()
    assert [w["status"] for w in await asyncio.gather(*waits, *others)] == [204] * (room + 2)
    # Once its requests are answered, the client may come again.
    assert (await answer(gate, scope(session("mallory"))))["status"] == 204
    assert gate.held == {}


def test_requests_without_credentials_are_not_counted(settings):
    settings.LIVE_MAX_WAITS_PER_PLAYER = 1
    held = Held()
    held.release.set()
    gate = RequestsPerClient(held)

    async def three() -> list[dict]:
        return await asyncio.gather(*(answer(gate, scope()) for _ in range(3)))

    answers = asyncio.run(three())
    assert [a["status"] for a in answers] == [204] * 3
    assert gate.held == {}


def test_the_live_process_serves_through_the_gate():
    assert isinstance(asgi.application, RequestsPerClient)
    assert asgi.application.app is asgi.django_application
