# ruff: noqa: E501 - the summaries read best one sentence per line
"""The short rules page. The full catalog (RULES.md) is not shipped with the server; this
summary names the rule IDs so players and hosts can look them up. Titles and summaries are
English msgids; the page translates them through the catalog."""

from __future__ import annotations

from typing import NamedTuple

from ..i18n import N_


class Section(NamedTuple):
    anchor: str
    title: str
    summary: str
    rules: tuple[str, ...]


SECTIONS: tuple[Section, ...] = (
    Section("PLAYER", N_("Player requirements"),
            N_("Signing up from the Recruitment Post means accepting five requirements: activity, knowing the rules, a voice contact (phone or Skype — only the Procurator and the city's Tribune see it), no insults, and omertà."),
            ('PLAYER-1', 'PLAYER-2', 'PLAYER-3', 'PLAYER-4', 'PLAYER-5', 'PLAYER-6')),
    Section("CITY", N_("Cities and hosts"),
            N_("Players live in several cities. The Procurator runs the game, a Tribune runs his city, the Supreme Arbiter runs courts and judge elections, and the secret Consigliere runs the deal and the mafia. Hosts never play."),
            ('CITY-1', 'CITY-3', 'HOST-1', 'HOST-PROC-1', 'HOST-TRIB-1', 'HOST-CONS-5')),
    Section("RANDOM", N_("The deal, certifiably random"),
            N_("The Consigliere seals a shuffled list of each city's residents; the Procurator names the mafia's numbers. The lists and the salt are published after the game, and anyone can check the commitment."),
            ('RANDOM-1', 'RANDOM-2', 'RANDOM-3', 'RANDOM-4', 'RANDOM-5', 'DIST-5')),
    Section("TIME", N_("Days and nights"),
            N_("A game day is a calendar day, Moscow time. Day 1 is set-up only; the first execution ends Day 2 and the first kill happens in Night 2. The Procurator may lengthen or shorten a day."),
            ('START-1', 'TIME-1', 'TIME-2', 'TIME-4')),
    Section("EXEC", N_("Execution"),
            N_("From Day 2, each living resident nominates one candidate a day in his personal inbox (the form is there, on «My role» and in the today panel), and may replace him until the vote opens. In the evening every candidate gets a voting inbox: «казнить» is a vote, «не казнить» withdraws one's own vote. The candidate with the most votes is executed; ties go to the earlier last vote, then to a lot."),
            ('EXEC-2', 'EXEC-3', 'EXEC-5', 'EXEC-7', 'EXEC-8', 'EXEC-10')),
    Section("COURT", N_("The Supreme Court"),
            N_("In games of four or more cities the elected judges may pardon the condemned within 30 minutes — then the runner-up is executed. Judges are elected at polling stations: «Он — Ганди!» for, «Он — Гитлер!» against."),
            ('COURT-1', 'COURT-3', 'COURT-4', 'JUDGE-ELECT-1', 'JUDGE-ELECT-10')),
    Section("MAFIA-KILL", N_("The mafia's night"),
            N_("Each city's mafia, led by its Godfather, may kill one honest resident of its own city; the touring mafia may kill one more in another city. The decision is fixed at the night's deadline."),
            ('GODFATHER-1', 'MAFIA-KILL-1', 'MAFIA-KILL-2', 'TOUR-1')),
    Section("COMM", N_("The commissar"),
            N_("The Procurator offers the commissar's badge by lot. Each night the commissar may ask the Consigliere over an anonymous line whether a resident of his city is a mafioso."),
            ('COMM-APPT-1', 'COMM-APPT-3', 'COMM-2', 'COMM-5')),
    Section("INBOX", N_("Inboxes"),
            N_("The game lives in private inboxes: the city's, personal, mafia, voting, court, cemetery and more. The rules decide who reads and who writes; a banned member only reads."),
            ('INBOX-GEN-1', 'INBOX-GEN-5', 'INBOX-CITY-1', 'INBOX-VOTE-1', 'INBOX-MAFIA-1')),
    Section("WIN", N_("Victory"),
            N_("A city is decided when no mafiosi (honest win) or no honest residents (mafia win) remain. The mafia wins the game if it wins more than half of the cities."),
            ('WIN-1', 'WIN-2', 'WIN-3')),
    Section("HOST", N_("The hosts' decisions"),
            N_("Every decision a host takes is recorded in the game's audit log: appointments, the calendar, vote and election schedules, commissar offers, Day Posts, disclosures, sanctions and bans, cases, delegations, the Consigliere's rules for the mafia, and every read of a contact. Each host reads his own lines; the Procurator reads every host's, except what the rules keep from him. The host's handbook explains each office day by day."),
            ('HOST-PROC-3', 'HOST-PROC-4', 'HOST-PROC-5', 'HOST-TRIB-2', 'HOST-ARB-3', 'HOST-2',
             'START-0', 'TIME-3', 'TIME-7', 'JUDGE-ELECT-4', 'COURT-5',
             'COMM-APPT-5', 'COMM-APPT-7', 'MAFIA-DISCLOSE-3', 'COMM-DISCLOSE-3', 'RESTORE-T2', 'RESTORE-3',
             'GODFATHER-2', 'GODFATHER-3', 'MAFIA-KILL-5', 'AMBUSH-6', 'MAFIA-COMM-1', 'IMPEACH-2', 'IMPEACH-6',
             'NOCONF-1', 'PLAYER-7', 'OMERTA-2', 'IMPEACH-5', 'RESTORE-T1', 'SOUND-1', 'POST-2', 'COMM-4')),
    Section("OMERTA", N_("Omertà and secrets"),
            N_("No host has a god view. Roles, the Consigliere, the commissars and the mafia's talk are revealed only after the game."),
            ('OMERTA-1', 'SEC-1', 'SEC-13')),
)


SECTION_OF = {"START": "TIME", "DIST": "RANDOM", "POST": "HOST", "AMBUSH": "COMM", "GODFATHER": "MAFIA-KILL",
              "TOUR": "MAFIA-KILL", "JUDGE": "COURT", "SEC": "OMERTA", "ROLE": "CITY", "SPIRIT": "EXEC",
              "SUICIDE": "EXEC", "SOUND": "HOST", "IMPEACH": "HOST", "NOCONF": "HOST", "RESTORE": "HOST",
              "MAFIA": "HOST"}
"""Rule families without a section of their own: the section that explains them."""


def rule_href(rule: str) -> str:
    """A link to where the rules page explains ``rule``: its own chip, else its section."""
    for section in SECTIONS:
        if rule in section.rules:
            return f"/rules#{rule}"
    for section in sorted(SECTIONS, key=lambda x: -len(x.anchor)):
        if rule.startswith(section.anchor):
            return f"/rules#{section.anchor}"
    family = next((f for f in sorted(SECTION_OF, key=len, reverse=True) if rule.startswith(f)), None)
    return f"/rules#{SECTION_OF[family]}" if family else "/rules"
