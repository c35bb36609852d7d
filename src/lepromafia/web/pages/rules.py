# ruff: noqa: E501 - translation tables read best one entry per line
"""The short rules page. The full catalog (RULES.md) is not shipped with the server; this
summary names the rule IDs so players and hosts can look them up."""

from __future__ import annotations

from typing import NamedTuple


class Section(NamedTuple):
    anchor: str
    title_ru: str
    title_en: str
    ru: str
    en: str
    rules: tuple[str, ...]


SECTIONS: tuple[Section, ...] = (
    Section("PLAYER", "Требования к игрокам", "Player requirements",
            "Записываясь по Посту набора, игрок принимает пять требований: активность, знание правил, "
            "голосовой контакт (телефон или Skype — его видят только Прокуратор и Трибун города), "
            "отсутствие оскорблений и омерту.",
            "Signing up from the Recruitment Post means accepting five requirements: activity, knowing the "
            "rules, a voice contact (phone or Skype — only the Procurator and the city's Tribune see it), "
            "no insults, and omertà.",
            ("PLAYER-1", "PLAYER-2", "PLAYER-3", "PLAYER-4", "PLAYER-5", "PLAYER-6")),
    Section("CITY", "Города и ведущие", "Cities and hosts",
            "Игроки живут в нескольких городах. Прокуратор ведёт игру, Трибун — свой город, Верховный Арбитр — "
            "суды и выборы судей, тайный Консильери — раздачу и мафию. Ведущие не играют.",
            "Players live in several cities. The Procurator runs the game, a Tribune runs his city, the "
            "Supreme Arbiter runs courts and judge elections, and the secret Consigliere runs the deal and the "
            "mafia. Hosts never play.",
            ("CITY-1", "CITY-3", "HOST-1", "HOST-PROC-1", "HOST-TRIB-1", "HOST-CONS-5")),
    Section("RANDOM", "Раздача с проверяемой случайностью", "The deal, certifiably random",
            "Консильери запечатывает перемешанные списки жителей каждого города; Прокуратор называет номера "
            "мафии. Списки и соль публикуются после игры, и любой может проверить отпечаток.",
            "The Consigliere seals a shuffled list of each city's residents; the Procurator names the mafia's "
            "numbers. The lists and the salt are published after the game, and anyone can check the commitment.",
            ("RANDOM-1", "RANDOM-2", "RANDOM-3", "RANDOM-4", "RANDOM-5", "DIST-5")),
    Section("TIME", "Дни и ночи", "Days and nights",
            "Игровой день — календарные сутки по Москве. День 1 — только подготовка; первая казнь — в конце "
            "Дня 2, первое убийство — в Ночь 2. Прокуратор может удлинить или сократить день.",
            "A game day is a calendar day, Moscow time. Day 1 is set-up only; the first execution ends Day 2 "
            "and the first kill happens in Night 2. The Procurator may lengthen or shorten a day.",
            ("START-1", "TIME-1", "TIME-2", "TIME-4")),
    Section("EXEC", "Казнь", "Execution",
            "Каждый живой житель номинирует одного кандидата за день в своём личном ящике. Вечером по каждому "
            "кандидату открывается ящик голосования: «казнить» — голос, «не казнить» — отзыв своего голоса. "
            "Казнят кандидата с наибольшим числом голосов; ничью решает более ранний последний голос, затем жребий.",
            "Each living resident nominates one candidate a day in his personal inbox. In the evening every "
            "candidate gets a voting inbox: «казнить» is a vote, «не казнить» withdraws one's own vote. The "
            "candidate with the most votes is executed; ties go to the earlier last vote, then to a lot.",
            ("EXEC-2", "EXEC-3", "EXEC-5", "EXEC-7", "EXEC-8", "EXEC-10")),
    Section("COURT", "Верховный суд", "The Supreme Court",
            "В игре от четырёх городов избранные судьи могут за 30 минут помиловать приговорённого — тогда "
            "казнят следующего. Судей выбирают на избирательных участках: «Он — Ганди!» за, «Он — Гитлер!» против.",
            "In games of four or more cities the elected judges may pardon the condemned within 30 minutes — "
            "then the runner-up is executed. Judges are elected at polling stations: «Он — Ганди!» for, "
            "«Он — Гитлер!» against.",
            ("COURT-1", "COURT-3", "COURT-4", "JUDGE-ELECT-1", "JUDGE-ELECT-10")),
    Section("MAFIA-KILL", "Ночь мафии", "The mafia's night",
            "Мафия города во главе с Крёстным отцом может убить одного честного жителя своего города; мафия "
            "города на гастролях — ещё одного в другом городе. Решение фиксируется к сроку ночи.",
            "Each city's mafia, led by its Godfather, may kill one honest resident of its own city; the touring "
            "mafia may kill one more in another city. The decision is fixed at the night's deadline.",
            ("GODFATHER-1", "MAFIA-KILL-1", "MAFIA-KILL-2", "TOUR-1")),
    Section("COMM", "Комиссар", "The commissar",
            "Прокуратор предлагает значок комиссара по жребию. Каждую ночь комиссар может спросить Консильери "
            "по анонимной линии, мафиози ли житель его города.",
            "The Procurator offers the commissar's badge by lot. Each night the commissar may ask the "
            "Consigliere over an anonymous line whether a resident of his city is a mafioso.",
            ("COMM-APPT-1", "COMM-APPT-3", "COMM-2", "COMM-5")),
    Section("INBOX", "Ящики", "Inboxes",
            "Вся игра идёт в закрытых ящиках: городской, личный, мафии, голосования, суд, кладбище и другие. "
            "Кто читает и пишет — определяют правила; забаненный участник только читает.",
            "The game lives in private inboxes: the city's, personal, mafia, voting, court, cemetery and more. "
            "The rules decide who reads and who writes; a banned member only reads.",
            ("INBOX-GEN-1", "INBOX-GEN-5", "INBOX-CITY-1", "INBOX-VOTE-1", "INBOX-MAFIA-1")),
    Section("WIN", "Победа", "Victory",
            "Город решён, когда в нём не осталось мафии (победа честных) или честных (победа мафии). Мафия "
            "побеждает в игре, если выиграла больше половины городов.",
            "A city is decided when no mafiosi (honest win) or no honest residents (mafia win) remain. The "
            "mafia wins the game if it wins more than half of the cities.",
            ("WIN-1", "WIN-2", "WIN-3")),
    Section("OMERTA", "Омерта и тайны", "Omertà and secrets",
            "Ни у одного ведущего нет «взгляда бога». Роли, Консильери, комиссары и переписка мафии "
            "раскрываются только после игры.",
            "No host has a god view. Roles, the Consigliere, the commissars and the mafia's talk are revealed "
            "only after the game.",
            ("OMERTA-1", "SEC-1", "SEC-13")),
)
