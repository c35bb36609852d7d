"""Write docs/balance.md from the last `make balance` run (issue 15).

    python tools/balance_doc.py var/balance docs

Reads ``<run>/cities/summary.json`` (honest win rate by number of cities) and
``<run>/settings/summary.json`` (mafia share, win condition, institutions on and off),
copies their charts to ``docs/balance/`` and writes the page. Every figure and every
sentence of the recommendation is computed from those two summaries, so the page is
always what the last run found.
"""

from __future__ import annotations

import json
import shutil
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

INSTITUTION_NAMES = {"court": "the Supreme Court", "tours": "the mafia's tours", "ambush": "the ambush",
                     "spirits": "the Spirit rule"}


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def ci(v: dict[str, Any]) -> str:
    lo, hi = v["honest_ci"]
    return f"{pct(lo)}–{pct(hi)}"


def main(run: Path, docs: Path) -> None:
    cities = json.loads((run / "cities" / "summary.json").read_text(encoding="utf-8"))
    settings = json.loads((run / "settings" / "summary.json").read_text(encoding="utf-8"))
    charts = docs / "balance"
    charts.mkdir(parents=True, exist_ok=True)
    for src, name in ((run / "cities" / "sweep_cities.png", "honest_by_cities.png"),
                      (run / "cities" / "cities.png", "city_outcomes_by_cities.png"),
                      (run / "cities" / "length.png", "length_by_cities.png"),
                      (run / "settings" / "institutions.png", "institutions.png"),
                      (run / "settings" / "sweep_mafia_share_percent.png", "honest_by_mafia_share.png"),
                      (run / "settings" / "roles.png", "roles.png")):
        if src.exists():
            shutil.copyfile(src, charts / name)
    (docs / "balance.md").write_text(render(cities, settings), encoding="utf-8")


def render(cities: dict[str, Any], settings: dict[str, Any]) -> str:
    by_cities = sorted((v for v in cities["variants"] if v["setting"] == "cities"), key=lambda v: v["cities"])
    base = next(v for v in settings["variants"] if v["label"] == "baseline")
    rows = "\n".join(f"| {v['cities']} | {v['games']} | {pct(v['honest_rate'])} | {ci(v)} | "
                     f"{v['days_mean']:.1f} |" for v in by_cities)
    effects = sorted(((v["honest_rate"] - base["honest_rate"], v) for v in settings["variants"]
                      if v["label"] != "baseline" and v["label"] != "mafia_share_percent=20"
                      and v["label"] != "city_win_condition=elimination" and not v["label"].endswith("=on")),
                     key=lambda x: -abs(x[0]))
    moves = "\n".join(f"| `{v['label']}` | {pct(v['honest_rate'])} | {ci(v)} | {100 * d:+.1f} |"
                      for d, v in effects)
    even = min(by_cities, key=lambda v: abs(v["honest_rate"] - 0.5))
    share = next((s for s in settings["sweeps"] if s["setting"] == "mafia_share_percent"), None)
    inst = {i["institution"]: i for i in settings["institutions"]}
    inst_rows = "\n".join(
        f"| {INSTITUTION_NAMES[name]} | {pct(i['on'])} | {pct(i['off'])} | {100 * i['effect']:+.1f} |"
        for name, i in inst.items())
    biggest = effects[0] if effects else None
    even_counts = [v for v in by_cities if v["cities"] % 2 == 0]
    odd_counts = [v for v in by_cities if v["cities"] % 2 == 1]
    parity = ""
    if even_counts and odd_counts:
        even_mean = sum(v["honest_rate"] for v in even_counts) / len(even_counts)
        odd_mean = sum(v["honest_rate"] for v in odd_counts) / len(odd_counts)
        parity = (f"Even numbers of cities average {pct(even_mean)} honest wins, odd ones {pct(odd_mean)}: "
                  f"with `even_split_result` = honest (WIN-4) a tied score goes to the honest side, which "
                  f"only an even number of cities can produce.")
    roles = base["roles"]
    advice = [
        f"* **Cities.** Among 2–8 cities the game is closest to even with **{even['cities']} cities** "
        f"(honest {pct(even['honest_rate'])}, 95% interval {ci(even)}).",
    ]
    if share:
        points = sorted((int(v["value"]), v["honest_rate"]) for v in settings["variants"]
                        if v["setting"] == "mafia_share_percent")
        crossing = next((f" The 50% line is crossed between {a}% ({pct(ra)}) and {b}% ({pct(rb)})."
                         for (a, ra), (b, rb) in pairwise(points)
                         if (ra - 0.5) * (rb - 0.5) < 0), "")
        advice.append(f"* **Mafia share.** With 5 cities of 20 the honest win rate is nearest 50% at "
                      f"**{share['closest_to_even']}%** mafia (honest {pct(share['closest_rate'])}); "
                      f"the default is 20%.{crossing}")
    if biggest:
        d, v = biggest
        advice.append(f"* **The strongest lever** measured is `{v['label']}`: {100 * d:+.1f} points of "
                      f"honest wins against the default.")
    for name, i in inst.items():
        lo_on, hi_on = i["on_ci"]
        lo_off, hi_off = i["off_ci"]
        overlap = not (hi_on < lo_off or hi_off < lo_on)
        verdict = "no effect distinguishable at this sample size" if overlap else (
            "helps the honest side" if i["effect"] > 0 else "helps the mafia")
        title = INSTITUTION_NAMES[name]
        advice.append(f"* **{title[0].upper() + title[1:]}**: {100 * i['effect']:+.1f} points "
                      f"when present — {verdict}.")
    return f"""# Balance: is the default game fair?

*Generated by `make balance` (`tools/balance_doc.py`) from the balance lab (issue 15); do not edit
by hand. Strategy bots at skill {settings['skills']} (`src/lepromafia/bots/strategy/`), cities of
{settings['population']}, the seed's default settings unless a row says otherwise. Every arm plays the
same seeds, so arms differ only by the setting. Intervals are 95% Wilson score intervals.*

Runs: {_played(cities)} games by number of cities ({cities['games_per_variant']} per arm) in
{cities['seconds']:.0f} s and {_played(settings)} five-city games ({settings['games_per_variant']} per arm)
in {settings['seconds']:.0f} s, on {settings['where']} of a shared 2-core machine. Invariant
violations: {len(cities['violations']) + len(settings['violations'])}
({cities['full_checks'] + settings['full_checks']} games checked in full, the rest step by step).
More games: `make balance BALANCE_GAMES=1000`.

## Honest win rate by number of cities (skill 2 against 2)

| Cities | Games | Honest wins | 95% interval | Mean days |
|---:|---:|---:|---|---:|
{rows}

{parity}

![Honest win rate by number of cities](balance/honest_by_cities.png)

![How each city ended](balance/city_outcomes_by_cities.png)

## What moves it most (5 cities, against the default's {pct(base['honest_rate'])})

| Variant | Honest wins | 95% interval | Points against the default |
|---|---:|---|---:|
{moves}

![Honest win rate by mafia share](balance/honest_by_mafia_share.png)

### Institutions on and off

"Off" for the Court and the Spirits is the setting (`supreme_court_mode` = never,
`spirit_rule_enabled` = false); tours and the ambush have no setting — the engine always offers
them — so "off" means the mafia bots never use them: the figure is what using them is worth.

| Institution | Honest wins with it | without it | Effect (points) |
|---|---:|---:|---:|
{inst_rows}

![Each institution on and off](balance/institutions.png)

### Who survives (default game)

Alive at the end: honest citizens {pct(roles['honest']['survival'] or 0)}, mafiosi
{pct(roles['mafia']['survival'] or 0)}, commissars {pct(roles['commissar']['survival'] or 0)},
judges {pct(roles['judge']['survival'] or 0)}, Godfathers {pct(roles['godfather']['survival'] or 0)}.
A commissar stays in office {base['commissar_days_mean'] or 0:.1f} days on average.

![Survival by role and the commissar's lifetime](balance/roles.png)

## Recommendation to hosts

{chr(10).join(advice)}

{_skew(base)}

These are bot games: the figures say what the rules do when both sides play the same, moderately
good strategy (skill 2). Real players differ; the lab (`lepromafia lab run --skill honest=…,mafia=…`)
shows how the answer moves when one side plays better, so a host can see how much of an imbalance
is the rules and how much is the players.
"""


def _played(summary: dict[str, Any]) -> int:
    """Games actually played: an arm identical to the baseline reuses its games."""
    return int(summary.get("played", summary["games"]))


def _skew(base: dict[str, Any]) -> str:
    rate = base["honest_rate"]
    if 0.35 <= rate <= 0.65:
        return "At equal skill the default game is close to even."
    side = "honest citizens" if rate > 0.5 else "mafia"
    return (f"At skill 2 against 2 the {side} win {pct(max(rate, 1 - rate))} of default games. Skill "
            f"levels are ladders within each side, not a calibrated match between sides: part of this "
            f"lean is the rules (the commissar's checks, the Procurator's confirmation of a revealed "
            f"commissar, a majority of honest voters) and part is how well each side's bots use them. "
            f"The levers above move the game toward even; a host who expects a strong mafia and a "
            f"loose town should read the table with `--skill honest=1,mafia=3` runs beside it.")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
