"""The notification pages and API as a resident and the Procurator use them: settings
with a refused time zone named in words and nothing changed, an e-mail address verified
by its link, reminders in the list and the unread count, read marks, a Telegram link
code, a push subscription, the dead letters only for the Procurator, the service worker."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta
from pathlib import Path

from lepromafia.engine.calendar import MOSCOW
from lepromafia.service.notify.channels import Outgoing
from lepromafia.service.notify.dispatcher import Dispatcher

from ..web.conftest import FIRST_DAY, Api, make_api, setup_game_via_api, small_cast
from .helpers import Recorder

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
CAST = small_cast()


def test_a_resident_sets_up_notifications_and_reads_them(tmp_path: Path) -> None:
    for api in make_api(tmp_path, notify_dispatch=False, base_url="http://site.test"):
        state = setup_game_via_api(api, "g", CAST)
        city = next(iter(state.cities))
        ana = state.cities[city].residents[0]
        procurator = CAST.procurator
        dispatcher = api.web.notify.dispatcher  # type: ignore[union-attr]
        assert dispatcher is not None
        mail = Recorder("email")
        dispatcher.senders["email"] = mail
        dispatcher.limits["email"] = dispatcher.limits["push"]

        def fresh(api: Api = api, ana: str = ana) -> str:
            page = api.get(ana, "/account/notifications").text
            return TOKEN.search(page).group(1)  # type: ignore[union-attr]

        def step(api: Api = api, dispatcher: Dispatcher = dispatcher) -> None:
            while api.client.portal.call(dispatcher.step):  # type: ignore[union-attr]
                pass

        api.client.cookies.set("lang", "en")
        page = api.get(ana, "/account/notifications")
        assert page.status_code == 200 and "Notification settings" in page.text
        token = TOKEN.search(page.text).group(1)  # type: ignore[union-attr]
        r = api.client.post("/account/notifications/profile", headers=api.headers(ana), data={
            "csrf_token": token, "language": "en", "time_zone": "Mars/Olympus", "quiet_start": "",
            "quiet_end": "", "digest": "off"})
        assert r.status_code == 200 and 'data-code="notify_setting_invalid"' in r.text
        assert "nothing was changed" in r.text and 'value="Europe/Moscow"' in r.text

        r = api.client.post("/account/notifications/email", headers=api.headers(ana),
                            data={"csrf_token": fresh(), "email": "ana@example.org"})
        assert r.status_code == 200 and "ana@example.org" in r.text
        step()
        (verify,) = mail.sent
        assert verify.address == "ana@example.org" and "/notify/verify/" in verify.link
        assert api.client.get(verify.link.removeprefix("http://site.test")).status_code == 200
        assert "Confirmed" in api.get(ana, "/account/notifications").text

        api.advance_to(datetime.combine(FIRST_DAY, time(9, 0), MOSCOW))
        for _ in range(30):  # Days 1 and 2 in steps of an hour: the Day Posts, the hosts' duties
            api.advance(timedelta(hours=1))
            step()
        count = api.get(ana, "/api/notifications/count").json()["unread"]
        assert count > 0
        listed = api.get(ana, "/api/notifications").json()
        assert all(n["game_id"] == "g" and "«Тест»" in n["text"] for n in listed)
        html = api.get(ana, "/notifications").text
        assert 'data-testid="notifications"' in html and "«Тест»" in html
        assert len(mail.sent) > 1 and all(isinstance(m, Outgoing) for m in mail.sent)
        r = api.post(ana, "/api/notifications/read", {})
        assert r.status_code == 204 and api.get(ana, "/api/notifications/count").json() == {"unread": 0}

        r = api.client.post("/account/notifications/telegram", headers=api.headers(ana),
                            data={"csrf_token": fresh()})
        assert r.status_code == 200 and "/start " in r.text

        key = api.get(ana, "/api/push/key").json()["key"]
        assert len(key) == 87  # base64url of a 65-byte uncompressed P-256 point
        bad = api.post(ana, "/api/push/subscriptions", {"endpoint": "ftp://x", "keys": {"p256dh": "a",
                                                                                         "auth": "b"}})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "notify_setting_invalid"
        good = api.post(ana, "/api/push/subscriptions", {"endpoint": "https://push.example/1",
                                                         "keys": {"p256dh": "a", "auth": "b"}})
        assert good.status_code == 204

        assert "Undelivered notifications" in api.get(procurator, "/notifications", game="g").text
        assert "Undelivered notifications" not in api.get(ana, "/notifications", game="g").text
        sw = api.client.get("/sw.js")
        assert sw.status_code == 200 and "showNotification" in sw.text
        assert api.client.get("/notifications", follow_redirects=False).status_code in (303, 307, 401)
