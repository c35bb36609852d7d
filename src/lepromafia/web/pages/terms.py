# ruff: noqa: E501 - translation tables read best one entry per line
"""Game terms that pages show for a stored key (an inbox kind, an archive status, a charge…).

Each group maps a key, as the engine and the read models store it, to its English msgid;
``term(lang, group, key)`` translates it through the catalog. Templates call
``term('kind', inbox.kind)``. Words that pages translate straight from a value
(``_(faction)``) are declared in ``VALUES`` so that ``pybabel extract`` finds them.
"""

from __future__ import annotations

from ..i18n import N_, translate

TERMS: dict[str, dict[str, str]] = {
    "kind": {
        "city": N_("City inbox"), "personal": N_("Personal inbox"), "mafia": N_("Mafia inbox"),
        "cemetery": N_("Cemetery"), "court": N_("Supreme Court"), "police": N_("Police station"),
        "office": N_("Chancellery"), "bar": N_("Bar"), "voting": N_("Voting inbox"),
        "polling": N_("Polling station"), "removal": N_("Judge removal"),
        "impeachment": N_("Impeachment"), "notary": N_("Notary"), "secret": N_("Secret inbox"),
        "offer": N_("Commissar offer"), "line": N_("Commissar line"),
        "certificate": N_("Notary inbox"),
    },
    "result": {
        "honest": N_("the honest win"), "mafia": N_("the mafia wins"), "draw": N_("a draw"),
    },
    "status": {
        "member": N_("you are a member"), "open": N_("open"), "on_request": N_("on request"),
        "awaiting_consent": N_("awaiting consent"), "closed": N_("closed"),
    },
    "charge": {
        "insult": N_("insult"), "slander": N_("slander"), "moral_abuse": N_("moral abuse"),
    },
    "decision": {"guilty": N_("guilty"), "not_guilty": N_("not guilty")},
    "impeachment": {
        "replace": N_("replace the Tribune"), "bonus": N_("a bonus to the initiators"),
        "unfounded": N_("unfounded"), "insignificant": N_("insignificant (the reasons stay sealed)"),
    },
    "noconf": {"arbiter": N_("in the Supreme Arbiter"), "consigliere": N_("in the Consigliere")},
    "relay": {"message": N_("a message"), "gift": N_("a valuable gift"), "fish": N_("a fish")},
    "majority": {
        "of_sitting": N_("a majority of the sitting judges"),
        "of_votes_cast": N_("a majority of the votes cast"),
    },
    "cause": {
        "execution": N_("execution"), "night_kill": N_("killed at night"), "suicide": N_("suicide"),
    },
    "sound": {"refused": N_("refused"), "no_show": N_("did not come")},
    "sanction": {
        "OMERTA-2": N_("breaking omertà"), "IMPEACH-5": N_("forged evidence"),
        "RESTORE-T1": N_("a leak that wrecks the game"),
    },
    "setting": {
        "city_count": N_("Number of cities"), "population_per_city": N_("Residents per city"),
        "mafia_share_percent": N_("Mafia share, %"), "mafia_rounding": N_("Rounding of the mafia count"),
        "host_role_combination": N_("Combining host offices"),
        "tribune_delegation_scope": N_("What a Tribune may delegate"), "deal_method": N_("How the mafia is dealt"),
        "deal_reveal_minutes": N_("Minutes to reveal the draw values"), "day_start_time": N_("Day starts at"),
        "default_vote_opens": N_("Vote opens at"), "default_vote_closes": N_("Vote closes at"),
        "allow_self_nomination": N_("Self-nomination allowed"), "publish_nominators": N_("Nominators are published"),
        "min_votes_to_execute": N_("Votes needed to execute"), "no_candidate_policy": N_("When nobody is nominated"),
        "final_tie_fallback": N_("A tie that remains"), "supreme_court_mode": N_("Supreme Court"),
        "pardon_window_minutes": N_("Minutes the Court has to pardon"), "pardon_majority": N_("Majority for a pardon"),
        "pardons_per_city_per_day": N_("Pardons per city and day"),
        "judge_election_notice_hours": N_("Notice of a judge election, hours"),
        "judge_election_notice_after_removal_hours": N_("Notice of an election after a removal, hours"),
        "judge_min_net_votes": N_("Net votes a judge needs"), "judge_min_for_votes": N_("Votes for a judge needs"),
        "judge_removal_policy": N_("Removing judges"), "judge_removal_deadline_hours": N_("Hours to remove a judge"),
        "judge_recusal_deadline_hours": N_("Hours to recuse a judge"),
        "decided_city_judge": N_("A decided city's judge"),
        "removed_judge_ineligible_days": N_("Days a removed judge cannot stand"),
        "commissar_offer_attempts": N_("Offers of the commissar's badge"),
        "commissar_offer_timeout_minutes": N_("Minutes to answer the offer"),
        "commissar_offer_min_window_minutes": N_("Shortest window for an offer, minutes"),
        "commissar_check_mode": N_("Answers to the commissar's checks"),
        "commissar_check_deadline_minutes": N_("Minutes to answer a check"),
        "ambush_window_minutes": N_("Minutes to place an ambush"),
        "police_station_member_list_visible": N_("Police station members are shown"),
        "mafia_decision_deadline_minutes": N_("Minutes for the mafia's decision"),
        "godfather_reelection_demand": N_("Who may demand a new Godfather"),
        "spirit_rule_enabled": N_("Spirits"), "spirit_persistence": N_("How long a Spirit stays"),
        "impeachment_share_percent": N_("Residents needed for an impeachment, %"),
        "confrontation_max_minutes": N_("Longest confrontation, minutes"),
        "last_word_max_minutes": N_("Longest Last Word, minutes"),
        "sound_library_visibility": N_("Who hears the Sound Library"),
        "city_inbox_daily_renewal": N_("A new city inbox every day"), "cemetery_scope": N_("Cemeteries"),
        "observer_access_after_death": N_("Observers keep reading after death"),
        "death_status_reveal": N_("What a death reveals"), "arbiter_bans_in_voting": N_("Arbiter's bans in voting inboxes"),
        "arbiter_ban_scope": N_("Where the Arbiter may ban"), "city_win_condition": N_("When a city is decided"),
        "even_split_result": N_("Result of an even split"), "continue_after_decided": N_("Play on after a city is decided"),
        "winning_mafia_scope": N_("Which mafiosi win"), "message_max_length": N_("Longest message, characters"),
        "inactivity_hours": N_("Hours without a post before a reminder"),
    },
    "option": {
        "True": N_("yes"), "False": N_("no"),
        "ceil": N_("up"), "round_half_up": N_("to the nearest"), "floor": N_("down"),
        "auto": N_("with four cities or more"), "always": N_("always"), "never": N_("never"),
        "none": N_("nobody is executed"), "lot": N_("a lot"),
        "of_sitting": N_("a majority of the sitting judges"), "of_votes_cast": N_("a majority of the votes cast"),
        "fixed_5": N_("five judges, always"), "reduce_to_floor": N_("fewer judges, down to the minimum"),
        "arbiter_decides": N_("the Arbiter decides"), "floor_always": N_("the minimum, always"),
        "leaves": N_("leaves the Court"), "keeps_seat": N_("keeps the seat"),
        "automatic": N_("automatic"), "consigliere": N_("by the Consigliere"),
        "majority": N_("a majority of the mafia"), "any_member": N_("any mafioso"),
        "per_day": N_("one day"), "cumulative": N_("cumulative"),
        "public": N_("everyone"), "city_only": N_("the city only"),
        "per_city": N_("one per city"), "global": N_("one for the game"), "faction": N_("the faction"),
        "organizer_inboxes": N_("inboxes the banned player's host organizes"),
        "city_inbox_cemetery": N_("the city inbox and the Cemetery"),
        "plus_police_impeachment": N_("also the police station and impeachments"),
        "elimination": N_("one side is eliminated"), "mafia_outnumbers": N_("the mafia outnumbers the honest"),
        "honest": N_("the honest win"), "draw": N_("a draw"),
        "all_cities": N_("every mafioso"), "mafia_won_cities": N_("the mafiosi of the cities they won"),
        "allowed": N_("allowed"), "forbidden": N_("forbidden"),
        "voting": N_("the votes"), "full": N_("everything"),
        "by_hand": N_("numbers named by the Procurator"), "commit_reveal": N_("a verifiable draw"),
    },
}

VALUES = (
    N_("honest"), N_("mafia"), N_("draw"), N_("execution"), N_("suicide"),
    N_("submitted"), N_("forwarded"), N_("accepted"), N_("declined"), N_("done"),
    N_("acoustic"), N_("visual"), N_("refused"), N_("recorded"),
    N_("confrontation"), N_("interrogation"), N_("last word"), N_("séance"),
)
"""English values that pages translate directly (``_(value)``): declared for the extractor."""


def setting_value(lang: str, value: object) -> str:
    """A setting's value as people read it: a named option or yes/no in words, a number as is."""
    if isinstance(value, bool | str):
        return term(lang, "option", value)
    return str(value)


def term(lang: str, group: str, key: object) -> str:
    """The translated term for ``key`` in ``group``; an unknown key is shown as given (the
    all-pages test fails on it)."""
    msgid = TERMS.get(group, {}).get(str(key))
    return translate(lang, msgid) if msgid else str(key)
