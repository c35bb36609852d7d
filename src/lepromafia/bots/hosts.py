"""Bots for the hosts' rarer decisions: disclosures confirmed by the Procurator
(MAFIA-DISCLOSE, COMM-DISCLOSE) and a city's restoration (RESTORE-T2, RESTORE-1..7)."""

from __future__ import annotations

from datetime import datetime

from ..engine import commands as cmd
from ..engine import commands_host as hc
from ..engine import events as ev
from ..engine import events_host as hev
from ..engine.inboxes import can_read
from ..engine.records import MessageRef
from ..engine.rules.host import SANCTION_RULES, offices_of
from ..engine.table import Table
from .base import HOUR, MINUTE, BotBase


class HostMoves(BotBase):
    def disclosures(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        mafia = s.living_mafia(city)
        if mafia and self.chance(0.01):
            self.try_do(table, cmd.ConfirmMafiosoDisclosure(
                actor=s.procurator, user=self.rng.choice(mafia), reason="раскрылся в городе"), now)
        if s.cities[city].commissar and self.chance(0.01):
            self.try_do(table, cmd.ConfirmCommissarDisclosure(
                actor=s.procurator, city=city, reason="раскрыт в посте"), now)

    def maybe_restore(self, table: Table, now: datetime) -> None:
        """Rarely a city is declared destroyed: three signatures, a sealed list, numbers."""
        s = table.game
        if not s.consigliere or not self.chance(0.012):
            return
        open_cities = [n for n, c in s.cities.items()
                       if c.decided is None and c.restoration is None and len(s.living(n)) >= 3]
        if not open_cities:
            return
        city = self.rng.choice(open_cities)
        c = s.cities[city]
        name = f"Ново-{c.display_name or c.name}"
        if not self.try_do(table, cmd.ProposeRestoration(actor=s.procurator, city=city, new_name=name,
                                                         reason="утечка"), now):
            return
        signers = [s.consigliere, c.tribune]
        self.rng.shuffle(signers)
        for i, host in enumerate(signers):
            self.try_do(table, cmd.SignRestoration(actor=host, city=city), now + (i + 1) * MINUTE)
        s = table.game
        order = s.living(city)
        self.rng.shuffle(order)
        salt = f"{self.rng.getrandbits(128):032x}"
        seal = cmd.SealRestorationList(actor=s.consigliere or "", city=city, order=tuple(order), salt=salt)
        sealed = [e for e in self.try_do(table, seal, now + 10 * MINUTE)
                  if isinstance(e, ev.RestorationListSealed)]
        if not sealed:
            return
        numbers = tuple(self.rng.sample(range(1, len(order) + 1), sealed[0].mafia_count))
        self.try_do(table, cmd.NameRestorationNumbers(actor=s.procurator, city=city, numbers=numbers),
                    now + 20 * MINUTE)


class HostDecisions(BotBase):
    """The hosts' discretionary commands at random, right and wrong alike, so the simulator
    plays them and the invariants (liveness above all) check what they leave behind:
    calendar changes (TIME-2..4, D7, D11), sanctions (PLAYER-7), delegations (HOST-TRIB-2),
    the ambush order (AMBUSH-6), contests (HOST-PROC-5), public comments and their hiding
    (POST-1, POST-2) and notary inboxes (INBOX-NOTARY-1..3)."""

    hosts = 0.0
    """Chance, per host move and day, that the host makes it (0: the hosts stay quiet)."""

    def host_day(self, table: Table, day: int, now: datetime) -> None:
        moves = (self.calendar, self.sanction, self.delegation, self.ambush_order, self.contest,
                 self.discussion, self.notary)
        for i, move in enumerate(moves):
            if self.hosts and self.chance(self.hosts):
                move(table, day, now + (7 + i) * MINUTE)

    def calendar(self, table: Table, day: int, now: datetime) -> None:
        """A shortened, long or re-timed day ahead; some of them break TIME-2/TIME-8 and
        must be refused (D7, D11)."""
        s = table.game
        target = day + self.rng.choice((1, 2))
        plan = s.plans.get(target) or s.plans.get(day)
        if plan is None:
            return
        kind = self.rng.random()
        procurator = s.procurator
        if kind < 0.5:
            start = plan.start_at + (target - plan.number) * 24 * HOUR
            end = start + self.rng.randint(-4 * 60, 16 * 60) * MINUTE
            nxt = end + self.rng.randint(3 * 60, 22 * 60) * MINUTE
            self.try_do(table, cmd.ShortenDay(actor=procurator, day=target, end_at=end, next_start_at=nxt,
                                              decision_offset_minutes=self.rng.choice((30, 60, 120)),
                                              ambush_window_minutes=self.rng.choice((15, 60))), now)
        elif kind < 0.75:
            hhmm = f"{self.rng.randint(6, 15):02d}:{self.rng.choice((0, 15, 30, 45)):02d}"
            self.try_do(table, cmd.SetDayStart(actor=procurator, day=target, time=hhmm), now)
        else:
            self.try_do(table, cmd.DeclareLongDay(actor=procurator, day=target,
                                                  length_days=self.rng.choice((2, 3))), now)

    def sanction(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        user = self.rng.choice(sorted(s.residents))
        until = None if self.chance(0.5) else (now + self.rng.randint(1, 60) * 24 * HOUR).date()
        self.try_do(table, hc.RecordSanction(actor=s.procurator, user=user,
                                             rule=self.rng.choice(SANCTION_RULES), until=until,
                                             reason="нарушение"), now)

    def delegation(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        if len(s.cities) < 2:
            return
        city = self.rng.choice(sorted(s.cities))
        tribune = s.cities[city].tribune
        others = sorted(s.tribunes() - {tribune})
        if not others:  # one tribune for every city: nobody to delegate to
            return
        other = self.rng.choice(others)
        done = self.try_do(table, hc.DelegateTribune(actor=tribune, city=city, delegate=other,
                                                     starts_at=now, until=now + 8 * HOUR,
                                                     reason="отъезд"), now)
        if done and self.chance(0.5):
            number = len(table.game.records.delegations)
            self.try_do(table, hc.RevokeDelegation(actor=tribune, delegation=number, reason="вернулся"),
                        now + HOUR)

    def ambush_order(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        if not s.consigliere:
            return
        city = self.rng.choice(sorted(s.cities))
        order = s.living_mafia(city)
        self.rng.shuffle(order)
        self.try_do(table, hc.SetAmbushOrder(actor=s.consigliere, city=city, order=tuple(order),
                                             reason="порядок"), now)

    def contest(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        done = self.try_do(table, hc.PublishContest(actor=s.procurator, title="Шарада",
                                                    text="Отгадайте слово"), now)
        if done:
            number = len(table.game.records.contests)
            living = [u for u, r in s.residents.items() if r.alive]
            who = tuple(self.rng.sample(living, min(3, len(living))))
            self.try_do(table, hc.RecordContestResults(actor=s.procurator, contest=number,
                                                       participants=who, results="отгадали"),
                        now + 2 * HOUR)

    def discussion(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        author = self.rng.choice([*sorted(s.residents), "outsider", s.procurator])
        post = self.rng.choice(("recruitment", f"day:{day}"))
        if self.try_do(table, cmd.PostComment(actor=author, post=post, text="мнение"), now) \
                and self.chance(0.3):
            self.try_do(table, cmd.HideComment(actor=s.procurator, comment=table.game.discussion.comments,
                                               reason="флуд"), now + MINUTE)

    def notary(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        organizer = self.rng.choice(sorted(s.residents))
        salt = f"{self.rng.getrandbits(128):032x}"
        events = self.try_do(table, cmd.CreateNotaryInbox(actor=organizer, title="секрет",
                                                          content="я знаю", salt=salt), now)
        sealed = [e for e in events if isinstance(e, ev.NotarySealed)]
        if sealed:
            self.try_do(table, cmd.GrantNotaryAccess(actor=organizer, inbox=sealed[0].inbox,
                                                     user=self.rng.choice(sorted(s.residents))), now)


class CaseMoves(HostDecisions):
    """Impeachment (IMPEACH-1..6), no-confidence (NOCONF-1, NOCONF-2), private prosecution
    with linked evidence and inbox bans (HOST-ARB-3, SEC-12), the Sound Library's requests and
    entries (SOUND, ROLE-CIT-5, HOST-PROC-4) and combinations of offices (HOST-2), played by
    residents and decided by the hosts."""

    def host_day(self, table: Table, day: int, now: datetime) -> None:
        super().host_day(table, day, now)
        moves = (self.impeachment, self.no_confidence, self.private_case, self.sound, self.combination)
        for i, move in enumerate(moves):
            if self.hosts and self.chance(self.hosts / 2):
                move(table, day, now + (20 + 5 * i) * MINUTE)

    def impeachment(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        open_cities = [n for n, c in s.cities.items() if c.decided is None and s.living(n)]
        if not open_cities:
            return
        city = self.rng.choice(sorted(open_cities))
        signers = s.living(city)
        self.rng.shuffle(signers)
        for i, user in enumerate(signers):
            events = self.try_do(table, hc.SignImpeachment(actor=user, grievance="грубит"), now + i * MINUTE)
            demanded = [e for e in events if isinstance(e, hev.ImpeachmentDemanded)]
            if demanded:
                number = demanded[0].impeachment
                outcome = self.rng.choice(("unfounded", "insignificant", "replace"))
                # Now and then the Arbiter takes the city on: a combination (HOST-2).
                new = (s.arbiter if s.arbiter and self.chance(0.3) else f"tribune-{city}-{number}") \
                    if outcome == "replace" else None
                self.try_do(table, hc.DecideImpeachment(actor=s.procurator, impeachment=number,
                                                        outcome=outcome, reason="рассмотрено",
                                                        new_tribune=new),
                            now + (len(signers) + 5) * MINUTE)
                return

    def no_confidence(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        living = [u for u, r in s.residents.items() if r.alive]
        if not living:
            return
        mafiosi = [u for u in living if s.is_mafia(u)]
        if mafiosi and self.chance(0.5):
            actor, target = self.rng.choice(sorted(mafiosi)), "consigliere"
        else:
            actor, target = self.rng.choice(sorted(living)), "arbiter"
        events = self.try_do(table, hc.ExpressNoConfidence(actor=actor, target=target, text="недоволен"), now)
        if events:
            number = len(table.game.records.complaints)
            self.try_do(table, hc.DecideNoConfidence(actor=s.procurator, complaint=number,
                                                     justified=self.chance(0.5), reason="разобрано"),
                        now + HOUR)

    def private_case(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        living = sorted(u for u, r in s.residents.items() if r.alive)
        if len(living) < 2 or not s.arbiter:
            return
        complainant, accused = self.rng.sample(living, 2)
        events = self.try_do(table, hc.FilePrivateCase(actor=complainant, accused=accused,
                                                       charge=self.rng.choice(("insult", "slander")),
                                                       text="оскорбил"), now)
        if not events:
            return
        number = len(table.game.records.cases)
        shown = self.readable_message(table, complainant)
        if shown:  # SEC-12: the Arbiter sees exactly the messages the complainant links
            self.try_do(table, hc.LinkEvidence(actor=complainant, case=f"private:{number}",
                                               messages=(shown,)), now + 10 * MINUTE)
        guilty = self.chance(0.6)
        city = s.residents[accused].city
        box = table.game.current_inbox("city", city)
        inboxes = (box,) if guilty and box else ()
        done = self.try_do(table, hc.DecidePrivateCase(actor=s.arbiter, case=number, guilty=guilty,
                                                       reason="решено", inboxes=inboxes,
                                                       until=now + 6 * HOUR if inboxes else None),
                           now + HOUR)
        if done and inboxes and self.chance(0.5):
            self.try_do(table, hc.LiftInboxBan(actor=s.arbiter, case=number, reason="помилован"),
                        now + 2 * HOUR)

    def readable_message(self, table: Table, user: str) -> MessageRef | None:
        """The latest message the user can read, as a link (IMPEACH-2)."""
        s = table.game
        for seq in range(len(table.events), 0, -1):
            e = table.events[seq - 1]
            if isinstance(e, ev.MessagePosted) and can_read(s, e.inbox, user):
                return MessageRef(inbox=e.inbox, seq=seq)
        return None

    def sound(self, table: Table, day: int, now: datetime) -> None:
        """A confrontation asked of the Tribune, sometimes forwarded to the Procurator,
        answered, and published recorded, refused or missed (SOUND-CONF-1..6, ROLE-CIT-5)."""
        s = table.game
        cities = sorted(n for n, c in s.cities.items() if c.decided is None and len(s.living(n)) >= 2)
        if not cities:
            return
        requester, target = self.rng.sample(s.living(self.rng.choice(cities)), 2)
        events = self.try_do(table, hc.RequestSound(actor=requester, kind="confrontation", target=target,
                                                    note="поговорим"), now)
        asked = next((e for e in events if isinstance(e, hev.SoundRequested)), None)
        if asked is None:
            return
        handler = table.game.cities[asked.city].tribune
        if self.chance(0.3):
            self.try_do(table, hc.ForwardSoundRequest(actor=handler, request=asked.request,
                                                      reason="к Прокурору"), now + 5 * MINUTE)
            handler = table.game.procurator
        accept = self.chance(0.8)
        self.try_do(table, hc.AnswerSoundRequest(actor=handler, request=asked.request, accept=accept,
                                                 scheduled_for=now + HOUR if accept else None,
                                                 reason="" if accept else "некогда"), now + 10 * MINUTE)
        if accept:
            recorded = self.chance(0.7)
            self.try_do(table, hc.PublishSoundEntry(
                actor=handler, kind="confrontation", request=asked.request,
                media=f"sound-{asked.request}.mp3" if recorded else "",
                duration_seconds=self.rng.randint(60, 600) if recorded else 0,
                outcome="recorded" if recorded else self.rng.choice(("refused", "no_show"))),
                now + 2 * HOUR)

    def combination(self, table: Table, day: int, now: datetime) -> None:
        """HOST-2 (AMB-27): the Procurator acknowledges a host holding two offices."""
        s = table.game
        for user in sorted(s.hosts()):
            if len(offices_of(s, user)) >= 2 and user not in s.records.acknowledged:
                self.try_do(table, hc.AcknowledgeCombination(actor=s.procurator, user=user,
                                                             reason="предупреждён"), now)
                return
