"""The lab's report: a summary (JSON), the games and cities (CSV), charts and one HTML page.

Everything is computed in ``summarize`` from the game records, so the JSON, the CSV and
the page always tell the same story. Charts are matplotlib PNGs beside ``index.html``.
"""

from __future__ import annotations

import csv
import html
import json
from collections import defaultdict
from pathlib import Path
from statistics import mean, median
from typing import Any

from .games import ROLES
from .stats import wilson
from .sweep import INSTITUTIONS, Sweep

CITY_OUTCOMES = ("honest", "mafia", "draw", "playing")


def summarize(sweep: Sweep, records: list[dict[str, Any]], seconds: float, where: str) -> dict[str, Any]:
    arms: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        arms[r["label"]].append(r)
    order = [v.label for v in sweep.variants()]
    rank = {label: i for i, label in enumerate(order)}
    variants = [_arm(label, arms[label]) for label in sorted(arms, key=lambda x: rank.get(x, len(rank)))]
    by_label = {v["label"]: v for v in variants}
    sweeps = []
    for setting in dict.fromkeys(v["setting"] for v in variants if v["setting"] != "baseline"):
        points = [v for v in variants if v["setting"] == setting]
        best = min(points, key=lambda v: (abs(v["honest_rate"] - 0.5), v["label"]))
        sweeps.append({"setting": setting, "points": [p["label"] for p in points],
                       "closest_to_even": best["value"], "closest_rate": best["honest_rate"]})
    institutions = []
    for name in INSTITUTIONS:
        on, off = by_label.get(f"{name}=on"), by_label.get(f"{name}=off")
        if on and off:
            institutions.append({"institution": name, "on": on["honest_rate"], "off": off["honest_rate"],
                                 "on_ci": on["honest_ci"], "off_ci": off["honest_ci"],
                                 "effect": on["honest_rate"] - off["honest_rate"]})
    violations = [{"label": r["label"], "seed": r["seed"], "first": r["first_violation"]}
                  for r in records if r["violations"]]
    return {
        "games": len(records), "games_per_variant": sweep.games, "cities": sweep.cities,
        "population": sweep.population, "skills": str(sweep.skills), "seed": sweep.seed,
        "seconds": round(seconds, 1), "where": where,
        "full_checks": sum(1 for r in records if r["full_check"]),
        "variants": variants, "sweeps": sweeps, "institutions": institutions,
        "violations": violations,
    }


def _arm(label: str, games: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(games)
    honest = sum(1 for g in games if g["result"] == "honest")
    mafia = sum(1 for g in games if g["result"] == "mafia")
    cities: dict[str, int] = dict.fromkeys(CITY_OUTCOMES, 0)
    for g in games:
        for c in g["city_outcomes"]:
            cities[c["outcome"]] = cities.get(c["outcome"], 0) + 1
    roles = {}
    for role in ROLES:
        held = sum(g["roles"][role][0] for g in games)
        alive = sum(g["roles"][role][1] for g in games)
        roles[role] = {"held": held, "alive": alive, "survival": alive / held if held else None}
    served = [d for g in games for d, _ended in g["commissar_days"]]
    ended = [d for g in games for d, was_ended in g["commissar_days"] if was_ended]
    days = [g["days"] for g in games]
    lo, hi = wilson(honest, n)
    return {
        "label": label, "setting": games[0]["setting"], "value": games[0]["value"],
        "cities": games[0]["cities"], "games": n, "honest_wins": honest, "mafia_wins": mafia,
        "draws": n - honest - mafia, "honest_rate": honest / n if n else 0.0, "honest_ci": [lo, hi],
        "days_mean": mean(days) if days else 0, "days_median": median(days) if days else 0,
        "days_min": min(days, default=0), "days_max": max(days, default=0),
        "city_outcomes": cities, "roles": roles,
        "commissar_days_mean": mean(served) if served else None,
        "commissar_ended_share": len(ended) / len(served) if served else None,
        "seconds_per_game": mean(g["seconds"] for g in games) if games else 0,
        "violations": sum(1 for g in games if g["violations"]),
    }


# --- files -------------------------------------------------------------------------------


def write(out: Path, summary: dict[str, Any], records: list[dict[str, Any]]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, ensure_ascii=False, indent=2), encoding="utf-8")
    with (out / "games.json").open("w", encoding="utf-8") as fh:
        json.dump(records, fh, ensure_ascii=False)
    _csv(out / "games.csv", ["label", "setting", "value", "cities", "index", "seed", "result", "days",
                             "events", "full_check", "violations", "seconds"], records)
    city_rows = [{"label": r["label"], "seed": r["seed"], **c} for r in records for c in r["city_outcomes"]]
    _csv(out / "cities.csv", ["label", "seed", "city", "outcome", "mafia_alive", "honest_alive"], city_rows)
    rows = [{"label": v["label"], "setting": v["setting"], "value": v["value"], "games": v["games"],
             "honest_wins": v["honest_wins"], "honest_rate": round(v["honest_rate"], 4),
             "ci_low": round(v["honest_ci"][0], 4), "ci_high": round(v["honest_ci"][1], 4),
             "days_mean": round(v["days_mean"], 2),
             "commissar_days_mean": _round(v["commissar_days_mean"]),
             **{f"survival_{role}": _round(v["roles"][role]["survival"]) for role in ROLES}}
            for v in summary["variants"]]
    _csv(out / "variants.csv", list(rows[0]) if rows else [], rows)
    charts = draw_charts(out, summary, records)
    page = out / "index.html"
    page.write_text(render_html(summary, charts), encoding="utf-8")
    return page


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _csv(path: Path, columns: list[str], rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


# --- charts ------------------------------------------------------------------------------

HONEST_COLOUR, MAFIA_COLOUR, DRAW_COLOUR, OPEN_COLOUR = "#2b6cb0", "#c53030", "#a0aec0", "#e2e8f0"


def draw_charts(out: Path, summary: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    variants = {v["label"]: v for v in summary["variants"]}
    charts: dict[str, str] = {}

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        charts[name.removesuffix(".png")] = name

    for sweep in summary["sweeps"]:
        if sweep["setting"] in INSTITUTIONS:
            continue  # drawn together in institutions.png
        points = [variants[label] for label in sweep["points"]]
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        xs = list(range(len(points)))
        rates = [p["honest_rate"] * 100 for p in points]
        lows = [(p["honest_rate"] - p["honest_ci"][0]) * 100 for p in points]
        highs = [(p["honest_ci"][1] - p["honest_rate"]) * 100 for p in points]
        ax.errorbar(xs, rates, yerr=[lows, highs], fmt="o-", color=HONEST_COLOUR, capsize=4)
        ax.axhline(50, color="#718096", linestyle="--", linewidth=1)
        ax.set_xticks(xs, [p["value"] for p in points])
        ax.set_ylim(0, 100)
        ax.set_xlabel(sweep["setting"])
        ax.set_ylabel("honest win rate, % (95% CI)")
        ax.set_title(f"Honest win rate by {sweep['setting']}")
        save(fig, f"sweep_{sweep['setting']}.png")

    labels = list(variants)
    fig, ax = plt.subplots(figsize=(7.2, max(2.4, 0.32 * len(labels) + 1)))
    bottoms = [0.0] * len(labels)
    for outcome, colour in zip(CITY_OUTCOMES, (HONEST_COLOUR, MAFIA_COLOUR, DRAW_COLOUR, OPEN_COLOUR),
                               strict=True):
        shares = []
        for label in labels:
            total = sum(variants[label]["city_outcomes"].values()) or 1
            shares.append(100 * variants[label]["city_outcomes"].get(outcome, 0) / total)
        ax.barh(labels, shares, left=bottoms, color=colour, label=outcome)
        bottoms = [b + s for b, s in zip(bottoms, shares, strict=True)]
    ax.invert_yaxis()
    ax.set_xlabel("share of cities, %")
    ax.set_title("How each city ended")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), fontsize=8, ncols=4, frameon=False)
    save(fig, "cities.png")

    fig, ax = plt.subplots(figsize=(7.2, max(2.4, 0.32 * len(labels) + 1)))
    days = defaultdict(list)
    for r in records:
        days[r["label"]].append(r["days"])
    ax.boxplot([days[label] for label in labels], orientation="horizontal", tick_labels=labels)
    ax.invert_yaxis()
    ax.set_xlabel("game days until the end")
    ax.set_title("Game length")
    save(fig, "length.png")

    if summary["institutions"]:
        rows = summary["institutions"]
        fig, ax = plt.subplots(figsize=(6.4, 3.4))
        xs = list(range(len(rows)))
        for offset, key, colour in ((-0.2, "on", HONEST_COLOUR), (0.2, "off", DRAW_COLOUR)):
            rates = [r[key] * 100 for r in rows]
            err = [[(r[key] - r[f"{key}_ci"][0]) * 100 for r in rows],
                   [(r[f"{key}_ci"][1] - r[key]) * 100 for r in rows]]
            ax.bar([x + offset for x in xs], rates, width=0.4, yerr=err, capsize=3, color=colour, label=key)
        ax.axhline(50, color="#718096", linestyle="--", linewidth=1)
        ax.set_xticks(xs, [r["institution"] for r in rows])
        ax.set_ylim(0, 100)
        ax.set_ylabel("honest win rate, %")
        ax.set_title("Each institution on and off")
        ax.legend(fontsize=8)
        save(fig, "institutions.png")

    base = variants.get("baseline") or next(iter(variants.values()))
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.4, 3.2))
    shown = [r for r in ROLES if base["roles"][r]["survival"] is not None]
    left.bar(shown, [100 * base["roles"][r]["survival"] for r in shown],
             color=[MAFIA_COLOUR if r in ("mafia", "godfather") else HONEST_COLOUR for r in shown])
    left.set_ylim(0, 100)
    left.set_ylabel("alive at the end, %")
    left.set_title(f"Survival by role ({base['label']})")
    served = [d for r in records if r["label"] == base["label"] for d, _ in r["commissar_days"]]
    right.hist(served, bins=range(0, max(served, default=1) + 2), color=HONEST_COLOUR, align="left")
    right.set_xlabel("days in office")
    right.set_ylabel("commissars")
    right.set_title("The commissar's lifetime")
    save(fig, "roles.png")
    return charts


# --- the page ----------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _survival_row(v: dict[str, Any]) -> str:
    cells = "".join(f"<td>{_pct(v['roles'][role]['survival'])}</td>" for role in ROLES)
    days = v["commissar_days_mean"]
    served = "—" if days is None else f"{days:.1f}"
    return (f"<tr><th scope=row>{html.escape(v['label'])}</th>{cells}<td>{served}</td>"
            f"<td>{_pct(v['commissar_ended_share'])}</td></tr>")


def render_html(summary: dict[str, Any], charts: dict[str, str]) -> str:
    e = html.escape
    rows = []
    for v in summary["variants"]:
        lo, hi = v["honest_ci"]
        served = "—" if v["commissar_days_mean"] is None else f"{v['commissar_days_mean']:.1f}"
        rows.append(
            f"<tr><th scope=row>{e(v['label'])}</th><td>{v['games']}</td>"
            f"<td>{_pct(v['honest_rate'])}</td><td>{_pct(lo)} – {_pct(hi)}</td>"
            f"<td>{v['days_mean']:.1f}</td><td>{_pct(v['roles']['commissar']['survival'])}</td>"
            f"<td>{served}</td>"
            f"<td>{v['violations']}</td></tr>")
    sweeps = "".join(
        f"<li><b>{e(s['setting'])}</b>: closest to an even game at <b>{e(s['closest_to_even'])}</b> "
        f"(honest {_pct(s['closest_rate'])})</li>" for s in summary["sweeps"]
    ) or "<li>No setting was varied.</li>"
    institutions = "".join(
        f"<tr><th scope=row>{e(i['institution'])}</th><td>{_pct(i['on'])}</td><td>{_pct(i['off'])}</td>"
        f"<td>{100 * i['effect']:+.1f} pts</td></tr>" for i in summary["institutions"])
    survival = "".join(_survival_row(v) for v in summary["variants"])
    figures = "".join(f'<figure><img src="{e(name)}" alt="{e(key)}"></figure>'
                      for key, name in charts.items())
    problems = summary["violations"]
    check = (f"<p class=ok>Every game kept the invariants ({summary['full_checks']} checked in full, "
             f"the rest step by step).</p>" if not problems else
             "<p class=bad>Games that broke an invariant: " + ", ".join(
                 f"{e(p['label'])} seed {p['seed']}: {e(p['first'])}" for p in problems[:20]) + "</p>")
    inst = (f"<h2>Institutions on and off</h2><table><thead><tr><th>Institution</th><th>On</th><th>Off</th>"
            f"<th>Effect of having it</th></tr></thead><tbody>{institutions}</tbody></table>"
            if institutions else "")
    role_heads = "".join(f"<th>{e(role.capitalize())}</th>" for role in ROLES)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lepromafia balance lab</title>
<style>
body {{ font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 1rem 1.5rem;
       color: #1a202c; }}
h1 {{ font-size: 1.6rem; margin-bottom: .2rem; }} .meta {{ color: #4a5568; margin-top: 0; }}
table {{ border-collapse: collapse; margin: .5rem 0 1.5rem; font-variant-numeric: tabular-nums; }}
th, td {{ padding: .3rem .7rem; border-bottom: 1px solid #e2e8f0; text-align: right; }}
td {{ white-space: nowrap; }} .scroll {{ overflow-x: auto; }}
th[scope=row], thead th:first-child {{ text-align: left; }}
figure {{ display: inline-block; margin: .5rem 1rem .5rem 0; }} img {{ max-width: 100%; height: auto; }}
.ok {{ color: #276749; }} .bad {{ color: #9b2c2c; }}
@media (max-width: 600px) {{ table {{ font-size: 13px; }} th, td {{ padding: .2rem .35rem; }} }}
</style></head><body>
<h1>Balance lab</h1>
<p class=meta>{summary['games']} games ({summary['games_per_variant']} per variant),
{summary['cities']} cities
of {summary['population']}, skill {e(summary['skills'])}, seeds from {summary['seed']};
played in {summary['seconds']} s on {e(summary['where'])}.</p>
{check}
<h2>Honest win rate per variant</h2>
<div class=scroll><table><thead><tr><th>Variant</th><th>Games</th><th>Honest wins</th>
<th>95% Wilson interval</th>
<th>Mean days</th><th>Commissars alive at end</th><th>Commissar's mean days in office</th>
<th>Broken games</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>
<h2>Closest to an even game</h2><ul>{sweeps}</ul>
{inst}
<h2>Survival by role and the commissar's lifetime</h2>
<p class=meta>Share of each role's holders alive when the game ended; a commissar's days in office
run from his appointment to his death or disclosure (or the end of the game).</p>
<div class=scroll><table><thead><tr><th>Variant</th>{role_heads}<th>Commissar's mean days</th>
<th>Commissars whose office ended</th></tr></thead><tbody>{survival}</tbody></table></div>
<h2>Charts</h2>
{figures}
<p class=meta>Data: <a href="summary.json">summary.json</a>, <a href="variants.csv">variants.csv</a>,
<a href="games.csv">games.csv</a>, <a href="cities.csv">cities.csv</a>,
<a href="games.json">games.json</a>.</p>
</body></html>
"""
